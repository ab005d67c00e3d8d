/**
 * `cdk-inferentia profiles`: the built-in model profiles (or a user's own, validated), with the warnings about
 * measurements that contradict themselves. Also `loadProfile`, which every command taking `--model | --profile` uses.
 */
import Table from 'cli-table3';
import { Command, Option } from 'commander';
import { InputError } from '../../lib/errors';
import { builtInGenerativeProfiles, findGenerativeProfile, parseGenerativeProfile, profileKindOf } from '../../lib/generative';
import type { GenerativeProfile } from '../../lib/generative';
import { builtInProfiles, checkProfile, closestProfileIds, findProfile, parseProfile, requireProfile } from '../../lib/profiles';
import type { ModelProfile, ProfileWarning } from '../../lib/profiles';
import { readJsonFile } from './files';
import type { CliIo } from './io';

/** Where a profile comes from: a built-in id or a JSON file; exactly one. */
export interface ProfileSource {
  /** Built-in profile id, as the Neuron tables write it. */
  readonly model?: string;
  /** Path of the user's profile JSON. */
  readonly profile?: string;
}

/** A profile and the warnings about its measurements. */
export interface LoadedProfile {
  readonly profile: ModelProfile;
  readonly warnings: ProfileWarning[];
}

/**
 * Loads the profile named by `--model ID` (built-in) or `--profile FILE` (validated JSON), and checks it.
 *
 * @throws InputError when neither or both are given, the id is unknown, or the file is unreadable or invalid
 */
export function loadProfile(opts: ProfileSource): LoadedProfile {
  const hasModel = opts.model !== undefined;
  const hasFile = opts.profile !== undefined;
  if (hasModel === hasFile) {
    throw new InputError(
      hasModel
        ? `--model ${opts.model} and --profile ${opts.profile} both given; pass only one`
        : 'no model given; pass --model ID (see `cdk-inferentia profiles`) or --profile FILE',
    );
  }
  const profile = hasModel ? requireProfile(opts.model as string) : parseProfile(readJsonFile('--profile', opts.profile as string), opts.profile as string);
  return { profile, warnings: checkProfile(profile) };
}

/** A single-call profile with its warnings, or a generative profile. */
export type AnyLoadedProfile = ({ readonly kind: 'single-call' } & LoadedProfile) | { readonly kind: 'generative'; readonly profile: GenerativeProfile };

/**
 * Loads `--model ID` (a built-in single-call or generative profile) or `--profile FILE` (a generative one when its
 * `kind` is "generative").
 *
 * @throws InputError as `loadProfile`, the unknown-model message listing generative ids too
 */
export function loadAnyProfile(opts: ProfileSource): AnyLoadedProfile {
  if (opts.model !== undefined && opts.profile === undefined) {
    const generative = findGenerativeProfile(opts.model);
    if (generative) {
      return { kind: 'generative', profile: generative };
    }
    if (!findProfile(opts.model)) {
      const generativeIds = builtInGenerativeProfiles().map((p) => p.id);
      throw new InputError(
        `unknown model '${opts.model}'; known models: ${closestProfileIds(opts.model).join(', ')}; generative: ${generativeIds.join(', ')}. ` +
          'Pass one of them with --model, or your own measurements with --profile FILE.',
      );
    }
  }
  if (opts.profile !== undefined && opts.model === undefined) {
    const json = readJsonFile('--profile', opts.profile);
    if (profileKindOf(json, opts.profile) === 'generative') {
      return { kind: 'generative', profile: parseGenerativeProfile(json, opts.profile) };
    }
  }
  return { kind: 'single-call', ...loadProfile(opts) };
}

/** Flags of `profiles`. */
interface ProfilesFlags {
  readonly model?: string;
  readonly profile?: string;
  readonly json?: boolean;
}

/** Registers `profiles` on the program. */
export function registerProfilesCommand(program: Command, io: CliIo): void {
  program
    .command('profiles')
    .description('List the built-in model profiles (Neuron performance tables), or show and check one')
    .addOption(new Option('--model <id>', 'show one built-in profile with its measurements and sources').conflicts('profile'))
    .addOption(new Option('--profile <file>', 'validate your own profile JSON and show it'))
    .option('--json', 'print { profiles, warnings, generative } as JSON (generative: the generative profiles, by kind)')
    .action((flags: ProfilesFlags) => {
      if (flags.model !== undefined || flags.profile !== undefined) {
        const one = loadAnyProfile({ model: flags.model, profile: flags.profile });
        if (one.kind === 'generative') {
          io.stdout(flags.json ? JSON.stringify({ profiles: [], warnings: [], generative: [one.profile] }, null, 2) + '\n' : formatGenerativeProfile(one.profile));
          return;
        }
      }
      const loaded =
        flags.model !== undefined || flags.profile !== undefined
          ? [loadProfile({ model: flags.model, profile: flags.profile })]
          : builtInProfiles().map((profile) => ({ profile, warnings: checkProfile(profile) }));
      const profiles = loaded.map((l) => l.profile);
      const warnings = loaded.flatMap((l) => l.warnings);
      const generative = loaded.length === 1 ? [] : builtInGenerativeProfiles();
      if (flags.json) {
        io.stdout(JSON.stringify({ profiles, warnings, generative }, null, 2) + '\n');
        return;
      }
      io.stdout(loaded.length === 1 ? formatProfile(profiles[0]) : formatSummary(profiles) + formatGenerativeSummary(generative));
      for (const warning of warnings) {
        io.stderr(`warning: ${warning.message}\n`);
      }
    });
}

/** One row per generative profile. */
function formatGenerativeSummary(profiles: readonly GenerativeProfile[]): string {
  if (profiles.length === 0) {
    return '';
  }
  const table = new Table({
    head: ['generative model (--model)', 'kind', 'parameters', 'dtype', 'measured (instance tp x seqs)', 'description'],
    style: { head: [], border: [], compact: true },
    wordWrap: true,
    colWidths: [26, 17, 12, 7, 44, 40],
  });
  for (const p of profiles) {
    const measured = [...new Set(p.measurements.map((m) => `${m.instanceType} ${m.tensorParallelDegree}x${m.batchSize}`))].join(', ');
    table.push([p.id, p.model.architecture, `${p.model.parametersBillions}B`, p.model.dtype, measured, p.description ?? '']);
  }
  return `\nGenerative models, planned in tokens (plan --model ID --input-tokens --output-tokens --ttft-p99 --tpot-p99):\n${table.toString()}\n`;
}

/** One generative profile with its rows and their sources. */
function formatGenerativeProfile(p: GenerativeProfile): string {
  const m = p.model;
  const table = new Table({
    head: ['#', 'instance', 'tp', 'seqs', 'in/out', 'SDK', 'TTFT p50', 'TPOT p50', 'tokens/s (counts)', 'source'],
    style: { head: [], border: [], compact: true },
    wordWrap: true,
    colWidths: [4, 15, 5, 6, 11, 8, 10, 10, 18, 60],
  });
  p.measurements.forEach((r, i) => {
    table.push([
      i, r.instanceType, r.tensorParallelDegree, r.batchSize, `${r.inputTokens}/${r.outputTokens}`, r.neuronSdkVersion,
      r.ttftP50Ms ?? '-', `${r.tpotP50Ms}${r.latencyCounts === 'input-and-output' ? ' (in+out)' : ''}`,
      r.tokensPerSecond === undefined ? '-' : `${r.tokensPerSecond} (${r.throughputCounts ?? 'output'})`,
      `${r.unverified ? 'UNVERIFIED ' : ''}${r.source}`,
    ]);
  });
  return (
    `${p.id}${p.huggingFaceId ? ` (${p.huggingFaceId})` : ''}: ${m.architecture}, ${m.parametersBillions}B parameters in ${m.dtype}, ` +
    `${m.layers} layers, ${m.attentionHeads} attention heads, ${m.kvHeads} KV heads of ${m.headDim}, vocabulary ${m.vocabulary}, ` +
    `context ${m.maxContextTokens} tokens\n  (${m.source})\n${table.toString()}\n`
  );
}

/** Up to 4 significant figures, without trailing zeros. */
function num(n: number): string {
  return String(+n.toPrecision(n >= 1000 ? 7 : 4));
}

/** `v1 x2, v2 x4`. */
function coreVersions(profile: ModelProfile): string {
  const counts = new Map<string, number>();
  for (const m of profile.measurements) {
    counts.set(m.coreVersion, (counts.get(m.coreVersion) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([version, count]) => `${version} x${count}`)
    .join(', ');
}

/** One row per profile. */
function formatSummary(profiles: readonly ModelProfile[]): string {
  const table = new Table({
    head: ['model (--model)', 'device GiB', 'host GiB', 'vCPU', 'measurements', 'description'],
    style: { head: [], border: [], compact: true },
  });
  for (const p of profiles) {
    table.push([p.id, num(p.deviceMemoryGiB), num(p.hostMemoryGiB), num(p.vcpuPerProcess ?? 1), coreVersions(p), p.description ?? '']);
  }
  return (
    `${table.toString()}\n` +
    'Memory is per model process. Built-in memory figures are estimates from parameter counts, not measurements.\n' +
    'Show a model\'s measurements and sources with `cdk-inferentia profiles --model ID`, everything with --json.\n'
  );
}

/** One profile with its measurements and their sources. */
function formatProfile(p: ModelProfile): string {
  const table = new Table({
    head: ['#', 'core', 'cores/process', 'batch', 'mode', 'measured on', 'inferences/s per process', 'p50 ms', 'p99 ms'],
    style: { head: [], border: [], compact: true },
  });
  p.measurements.forEach((m, i) => {
    table.push([
      i,
      `NeuronCore-${m.coreVersion}`,
      m.coresPerProcess,
      m.batchSize,
      m.mode ?? '',
      m.instanceType ?? '',
      num(m.throughputRps),
      num(m.p50Ms),
      num(m.p99Ms),
    ]);
  });
  const lines = [
    `${p.id}${p.description ? ` - ${p.description}` : ''}`,
    `per process: device ${num(p.deviceMemoryGiB)} GiB, host ${num(p.hostMemoryGiB)} GiB, ${num(p.vcpuPerProcess ?? 1)} vCPU`,
    ...(p.memorySource ? [`memory: ${p.memorySource}`] : []),
    table.toString(),
    'sources:',
    ...p.measurements.map((m, i) => `  [${i}] ${m.source}`),
  ];
  return lines.join('\n') + '\n';
}

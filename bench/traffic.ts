/**
 * `npm run bench:traffic`: the planner on the user's own traffic, held against replays of that same traffic.
 *
 * 1. Generative: per compiled configuration (Llama 3.1 8B, inf2.48xlarge TP 8, measured rows at 1, 4 and 16
 *    sequences) x lengths (a lognormal, and `examples/traffic/bursty.csv`'s own distribution) x arrivals (gamma gaps of
 *    SCV 1, 2, 4 and 8, and the file's own gaps): the capacity per replica the model plans
 *    (`replicaCapacityRps` with `arrivals`), and the highest rate the replay holds within every target when driven by
 *    the same arrivals and lengths (`simulateGenerativeReplica`, 60,000 requests a point). Goals: `over target: 0`
 *    (no plan claims a rate its replay misses) and planned / held of at least 0.75 (the bound `bench:plans` keeps for
 *    Poisson). It also prints what bursts cost: the planned capacity at each SCV over the Poisson one.
 * 2. Single-call: bert-base-uncased's inf2.xlarge row served stock by 2 processes, arrivals of SCV 1 to 8: the
 *    capacity `capacityRps` plans against the highest rate `simulateInstance` holds at the same arrivals.
 * 3. Reading: a generated file of a million CSV rows and 200,000 JSON lines through `readTrafficFile`, rows per second.
 *
 * Timings are wall-clock and move with the machine's load; the model checks are counts and ratios.
 */
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { readTrafficFile } from '../io/traffic';
import { engineTiming, findGenerativeProfile, meetsTargets, replicaCapacityRps, simulateGenerativeReplica } from '../lib/generative';
import { lengthsFromTraffic, lognormalLength } from '../lib/generative/lengths';
import type { GenerativeTargets, WorkloadLengths } from '../lib/generative/types';
import { builtInProfiles } from '../lib/profiles';
import { capacityRps, servingModel } from '../lib/planner/serving';
import { random, simulateInstance } from '../lib/planner/simulate';
import { arrivalProcessOf } from '../lib/traffic/arrivals';
import type { ArrivalProcess } from '../lib/traffic/types';
import { searchCapacity } from './generative-plans';

const REPLAY_REQUESTS = 60_000;
const SCVS = (process.env.BENCH_SCVS ?? "1,2,4,8").split(",").map(Number);

function gamma(scv: number): ArrivalProcess {
  return { scv, source: `gamma gaps of SCV ${scv}` };
}

async function generative(): Promise<{ over: number; total: number; lowest: number }> {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (profile === undefined) {
    throw new Error('llama-3.1-8b-instruct is not built in');
  }
  const rows = profile.measurements.filter((m) => m.instanceType === 'inf2.48xlarge' && m.neuronSdkVersion === '2.24.0');
  const file = await readTrafficFile(join(__dirname, '..', 'examples', 'traffic', 'bursty.csv'));
  const fileLengths = lengthsFromTraffic(file);
  const fileArrivals = arrivalProcessOf(file) as ArrivalProcess;
  const lognormal: WorkloadLengths = { input: lognormalLength(512, 1536, 'stated', 'bench'), output: lognormalLength(128, 384, 'stated', 'bench') };
  const workloads: { name: string; lengths: WorkloadLengths }[] = [
    { name: 'lognormal 512/128 (p99 x3)', lengths: lognormal },
    { name: 'bursty.csv lengths', lengths: fileLengths },
  ];
  let over = 0;
  let total = 0;
  let lowest = Infinity;
  process.stdout.write('Generative: planned capacity per replica against the highest rate the replay of the same traffic holds\n');
  process.stdout.write('seqs  lengths                      arrivals              planned rps  held rps  planned/held  planned/Poisson-planned\n');
  for (const seqs of (process.env.BENCH_SEQS ?? "1,4,16").split(",").map(Number).filter((n) => n > 0)) {
    const timing = engineTiming(rows, seqs);
    for (const { name, lengths } of workloads) {
      // Targets of the shape bench:plans uses: a TTFT of several prefills (one slot: of several whole requests, which
      // it queues behind), a TPOT of three steps (one slot: its step alone, nothing else runs).
      const prefill = timing.prefillSeconds(lengths.input.p99);
      const base: GenerativeTargets = {
        requestsPerSecond: 1,
        inputTokens: { mean: lengths.input.mean, p99: lengths.input.p99 },
        outputTokens: { mean: lengths.output.mean, p99: lengths.output.p99 },
        lengths,
        ttftP99Ms: Math.round(1000 * (seqs === 1 ? 20 * prefill + lengths.output.mean * timing.stepSeconds * 4 : 8 * prefill)),
        tpotP99Ms: Math.round(1000 * timing.stepSeconds * (seqs === 1 ? 1.05 : 3)),
      };
      const poisson = replicaCapacityRps(timing, base);
      for (const arrivals of [...SCVS.map(gamma), ...(lengths === fileLengths ? [fileArrivals] : [])]) {
        const targets: GenerativeTargets = { ...base, arrivals };
        const planned = replicaCapacityRps(timing, targets);
        const holds = (rate: number) => {
          const r = simulateGenerativeReplica({ timing, targets, requestsPerSecond: rate, requests: REPLAY_REQUESTS, seed: 7 });
          return meetsTargets({ stable: true, ttftP99Ms: r.ttftP99Ms, tpotP99Ms: r.tpotP99Ms, e2eP99Ms: r.e2eP99Ms, meanRunning: 0, prefillUtilization: 0 }, targets);
        };
        const held = planned > 0 ? searchCapacity(planned, Infinity, holds) : 0;
        const ratio = held > 0 ? planned / held : NaN;
        total++;
        if (planned > held * 1.002) {
          over++;
        }
        if (Number.isFinite(ratio)) {
          lowest = Math.min(lowest, ratio);
        }
        const label = arrivals === fileArrivals ? `file gaps (SCV ${arrivals.scv})` : `gamma SCV ${arrivals.scv}`;
        process.stdout.write(
          `${String(seqs).padEnd(6)}${name.padEnd(29)}${label.padEnd(22)}${planned.toFixed(3).padStart(11)}  ${held.toFixed(3).padStart(8)}  ` +
            `${ratio.toFixed(2).padStart(12)}${planned > held * 1.002 ? ' OVER' : '     '}  ${(planned / poisson).toFixed(2).padStart(10)}\n`,
        );
      }
    }
  }
  return { over, total, lowest };
}

function singleCall(): { over: number; total: number } {
  const profile = builtInProfiles().find((p) => p.id === 'bert-base-uncased');
  const m = profile?.measurements.find((r) => r.instanceType === 'inf2.xlarge');
  if (m === undefined) {
    throw new Error('bert-base-uncased has no inf2.xlarge row');
  }
  const targetMs = m.p99Ms * 4;
  let over = 0;
  process.stdout.write(`\nSingle-call: bert-base-uncased on inf2.xlarge (batch ${m.batchSize}), stock, 2 processes, p99 target ${targetMs} ms\n`);
  process.stdout.write('arrivals        planned rps  held rps  planned/held\n');
  for (const scv of SCVS) {
    const model = servingModel(m, { mode: 'stock', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0, arrivalScv: scv });
    const planned = capacityRps(model, targetMs / 1000);
    const held = searchCapacity(planned, Infinity, (rate) => simulateInstance({
      model, callP50Seconds: m.p50Ms / 1000, arrivalsPerSecond: rate, requests: 40_000, seed: 3, arrivals: gamma(scv),
    }).p99Seconds * 1000 <= targetMs);
    if (planned > held * 1.002) {
      over++;
    }
    process.stdout.write(`gamma SCV ${String(scv).padEnd(5)}${planned.toFixed(1).padStart(11)}  ${held.toFixed(1).padStart(8)}  ${(planned / held).toFixed(2).padStart(12)}${planned > held * 1.002 ? ' OVER' : ''}\n`);
  }
  return { over, total: SCVS.length };
}

async function reading(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-traffic-'));
  try {
    const next = random(11);
    const csv = join(dir, 'million.csv');
    const out = createWriteStream(csv);
    out.write('timestamp,input_tokens,output_tokens\n');
    let t = 1.7e9;
    for (let i = 0; i < 1_000_000; i++) {
      t += -Math.log(1 - next()) / 50;
      out.write(`${t.toFixed(6)},${1 + Math.floor(next() * 4000)},${1 + Math.floor(next() * 500)}\n`);
    }
    await new Promise<void>((resolve) => out.end(resolve));
    const jsonl = join(dir, 'gateway.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      lines.push(JSON.stringify({ created: 1717000000 + Math.floor(i / 5), choices: [{ message: { content: 'text' } }], usage: { prompt_tokens: 1 + (i % 3000), completion_tokens: 1 + (i % 400) } }));
    }
    writeFileSync(jsonl, `${lines.join('\n')}\n`);
    process.stdout.write('\nReading (wall clock, this machine under its current load)\n');
    for (const [file, rows] of [[csv, 1_000_000], [jsonl, 200_000]] as const) {
      const start = performance.now();
      const summary = await readTrafficFile(file);
      const seconds = (performance.now() - start) / 1000;
      process.stdout.write(`${summary.source}: ${seconds.toFixed(2)} s, ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const g = await generative();
  const s = singleCall();
  await reading();
  process.stdout.write(`\ngenerative plans over target: ${g.over} of ${g.total}; lowest planned / held ${g.lowest.toFixed(2)} (goal: at least 0.75)\n`);
  process.stdout.write(`single-call plans over target: ${s.over} of ${s.total}\n`);
}

void main();

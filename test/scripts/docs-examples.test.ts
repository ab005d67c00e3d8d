import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkDocsExamples } from '../../scripts/docs-examples/check';
import { figuresNotPrinted, figuresOf, summaryExcerpt } from '../../scripts/docs-examples/figures';
import { readPage, shellCommands } from '../../scripts/docs-examples/pages';
import { needsAws, placeholders } from '../../scripts/docs-examples/run';


const PLAN_OUTPUT = [
  'Plan for llama-3.1-8b-instruct: 2 requests/s of 1024 input tokens',
  '',
  '┌──────────────┬──────────────────────┐',
  '│ instance type│ ml.trn1.32xlarge     │',
  '├──────────────┼──────────────────────┤',
  '│ latency      │ TTFT p99 1127.9 ms,  │',
  '│              │ TPOT p99 36.82 ms    │',
  '├──────────────┼──────────────────────┤',
  '│ cost         │ $28.50/h, $15.46 per │',
  '└──────────────┴──────────────────────┘',
  '',
  'Alternatives (1 of 1):',
].join('\n');

describe('what a page says a command is', () => {
  test('GIVEN shell lines WHEN split THEN commands, redirects and placeholders come apart and comments go', () => {
    expect(shellCommands('npx cdk synth && npx cdk-inferentia plan --json > plan.json   # a plan')).toEqual([
      { words: ['npx', 'cdk', 'synth'] },
      { words: ['npx', 'cdk-inferentia', 'plan', '--json'], stdoutTo: 'plan.json' },
    ]);
    expect(shellCommands(`cdk-inferentia bench --body '{"inputs":["a b"]}' --image <account>.dkr.ecr`)[0].words)
      .toEqual(['cdk-inferentia', 'bench', '--body', '{"inputs":["a b"]}', '--image', '<account>.dkr.ecr']);
  });

  test('GIVEN a page WHEN read THEN its fenced and inline commands and its markers are found, a bare command name is not', () => {
    const page = readPage('p.md', [
      'Run `cdk-inferentia plan` as follows, or `cdk-inferentia profiles --model',
      'bert-base-uncased`:',
      '',
      '```sh',
      'npx cdk-inferentia plan --model m \\',
      '  --region us-east-1   # the region',
      '```',
      '',
      '<!-- docs:figures -->',
      'It costs $1.98/h.',
      '',
      '<!-- docs:output rows="cost" -->',
      '```text',
      'old',
      '```',
    ].join('\n'));
    const commands = page.items.flatMap((i) => ('command' in i ? [[i.command.line, i.command.argv.join(' ')]] : []));
    expect(commands).toEqual([[1, 'profiles --model bert-base-uncased'], [5, 'plan --model m --region us-east-1']]);
    const markers = page.items.flatMap((i) => ('marker' in i ? [i.marker] : []));
    expect(markers).toEqual([
      { kind: 'figures', line: 9, paragraph: 'It costs $1.98/h.', commands: [], anywhere: false },
      { kind: 'output', line: 12, rows: ['cost'], start: 13, end: 14, body: 'old' },
    ]);
  });

  test('GIVEN commands WHEN classified THEN AWS calls, templates and elisions are told apart from what runs', () => {
    expect(needsAws(['plan', '--model', 'm'])).toBeUndefined();
    expect(needsAws(['calibrate', '--report', 'run.json'])).toBeUndefined();
    expect(needsAws(['calibrate', '--report', 's3://b/k'])).toMatch(/S3/);
    expect(needsAws(['catalog', 'refresh'])).toMatch(/AWS/);
    expect(needsAws(['bench', '--url', 'x'])).toMatch(/AWS/);
    expect(placeholders(['plan', '--profile', '<profile.json>', '--region', 'REGION'])).toEqual({ named: ['<profile.json>', 'REGION'], elided: false });
    expect(placeholders(['plan', '...', '--json']).elided).toBe(true);
  });
});

describe('the figures a page shows against what a command prints', () => {
  test('GIVEN a paragraph WHEN its figures are read THEN prices, decimals, thousands and 100+ count; small integers, names and code do not', () => {
    expect(figuresOf('2 x ml.inf2.xlarge at 1,518 requests/s, p99 5.1 ms, $1.98/h, 4 cores, 8B, p99, `--throughput 2000`, 2026-11-24, 256 tokens')
      .map((f) => f.text)).toEqual(['1,518', '5.1', '$1.98', '256']);
  });

  test('GIVEN an output WHEN a paragraph is checked THEN a figure printed at any rounding passes and a stale one is named', () => {
    expect(figuresNotPrinted('TTFT p99 1,128 ms (1127.9), TPOT 36.8 ms, $28.50/h', PLAN_OUTPUT)).toEqual([]);
    expect(figuresNotPrinted('one ml.inf2.48xlarge for $15.58/h, TPOT p99 53 ms, capacity 2.54 requests/s', PLAN_OUTPUT).map((f) => f.text))
      .toEqual(['$15.58', '2.54']);
  });

  test('GIVEN a plan WHEN rows are excerpted THEN the heading and the named rows are kept as printed; an unknown row is named', () => {
    expect(summaryExcerpt(PLAN_OUTPUT, ['instance type', 'cost']).split('\n')).toEqual([
      'Plan for llama-3.1-8b-instruct: 2 requests/s of 1024 input tokens', '',
      '┌──────────────┬──────────────────────┐',
      '│ instance type│ ml.trn1.32xlarge     │',
      '├──────────────┼──────────────────────┤',
      '│ cost         │ $28.50/h, $15.46 per │',
      '└──────────────┴──────────────────────┘',
    ]);
    expect(() => summaryExcerpt(PLAN_OUTPUT, ['price'])).toThrow('the summary has no row "price" (it has: instance type, latency, cost)');
  });
});

describe('a page checked against the commands it shows', () => {
  // The pages themselves are checked by `npm run docs:examples` in `npm test`: the same check in one tsx process runs
  // the planner about 3.5 times faster than under jest (a Llama plan: 3.1 s of CPU against 11.1 s).
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-examples-test-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const command = 'npx cdk-inferentia plan --model bert-base-uncased --throughput 2000 --p99 10 --min-instances 2 --region us-east-1 --hosting sagemaker';
  const page = (figures: string, block: string): string => [
    '```sh', command, 'npx cdk-inferentia plan --model bert-base-uncased --throughput 2000 ...', '```', '',
    '<!-- docs:figures -->', figures, '', '<!-- docs:output rows="instance type, cost" -->', '```text', block, '```', '',
  ].join('\n');

  test('GIVEN a stale figure (an alternative\'s price, not the chosen plan\'s), a stale block and an elided command WHEN checked THEN each is named', async () => {
    fs.writeFileSync(path.join(scratch, 'stale.md'), page('It costs $15.58/h for 3,035.6 requests/s.', 'old'));
    const report = await checkDocsExamples(scratch, ['stale.md']);
    expect(report.problems.map((p) => p.where)).toEqual(['stale.md:3', 'stale.md:6', 'stale.md:9']);
    const [elided, figures, block] = report.problems.map((p) => p.message);
    expect(elided).toMatch(/elides part of the command with "\.\.\."/);
    expect(figures).toMatch(/^the paragraph shows \$15\.58, which `cdk-inferentia plan --model bert-base-uncased .*` does not print/);
    expect(block).toMatch(/npm run docs:examples -- --write/);
    // The page as it should be: the block regenerated from the output, the rest untouched.
    const fixed = report.regenerated.get('stale.md')!;
    expect(fixed).toContain('│ instance type            │ ml.inf2.xlarge');
    expect(fixed).toContain('It costs $15.58/h');
  });

  test('GIVEN the figures and block of today\'s output WHEN checked THEN only the elided command is refused', async () => {
    fs.writeFileSync(path.join(scratch, 'stale.md'), page('It costs $15.58/h for 3,035.6 requests/s.', 'old'));
    const regenerated = (await checkDocsExamples(scratch, ['stale.md'])).regenerated.get('stale.md')!;
    fs.writeFileSync(path.join(scratch, 'current.md'), regenerated.replace('$15.58/h', '$1.98/h'));
    const report = await checkDocsExamples(scratch, ['current.md']);
    expect(report.problems.map((p) => p.where)).toEqual(['current.md:3']);
    expect(report.commands.map((c) => c.outcome)).toEqual(['ran, exit 0', 'refused']);
  });
});

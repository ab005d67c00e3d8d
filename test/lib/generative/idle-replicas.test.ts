import { findGenerativeProfile, planGenerative } from '../../../lib/generative';

const LLAMA = findGenerativeProfile('llama-3.1-8b-instruct')!;
const targets = (e2eP99Ms: number, requestsPerSecond = 2) => ({
  requestsPerSecond, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, e2eP99Ms,
});
// One instance type keeps the suite quick; with every type the chosen plan is the same (156 ml.inf2.48xlarge at 6,000 ms).
const OPTIONS = { region: 'us-east-1', hosting: 'sagemaker' as const, instanceTypes: ['inf2.48xlarge'] };
const idle = (warnings: readonly string[]) => warnings.filter((w) => w.startsWith('replicas run on average'));

describe('a plan sized by a latency target, not by load, says so with the target that binds and what a looser one buys', () => {
  test('GIVEN an end-to-end target 6 % above the alone figure WHEN planned THEN the warning names it, and the looser value it offers holds on that layout with the instances it states', () => {
    const plan = planGenerative(LLAMA, targets(6000), OPTIONS);
    const [warning] = idle(plan.warnings);

    expect(warning).toMatch(/^replicas run on average 0\.0\d+ of \d+ sequences \(\d\.\d % busy\) at 2 requests\/s: the end-to-end p99 target \(6000 ms\) is 1\.\d\d x what a request takes alone \(\d+ ms\), .* \(\d+ instances\); at (\d+) ms \(--e2e-p99 \d+\) this layout needs (\d+): raise the target/);
    expect(warning).toContain(`(${plan.instanceCount} instances)`);
    const [, looser, needed] = /at (\d+) ms \(--e2e-p99 \d+\) this layout needs (\d+)/.exec(warning)!.map(Number);
    expect(needed).toBeLessThanOrEqual(plan.instanceCount / 2);
    const replanned = planGenerative(LLAMA, targets(looser), OPTIONS);
    expect(replanned.instanceCount).toBeLessThanOrEqual(needed);
  });

  test('GIVEN room to queue WHEN planned THEN no warning', () => {
    expect(idle(planGenerative(LLAMA, targets(8000), OPTIONS).warnings)).toEqual([]);
  });

  test('GIVEN a trickle one instance more than holds WHEN planned THEN no warning: the floor, not the target, sets the fleet', () => {
    const plan = planGenerative(LLAMA, targets(8000, 0.01), OPTIONS);
    expect(plan.instanceCount).toBe(1);
    expect(idle(plan.warnings)).toEqual([]);
  });
});

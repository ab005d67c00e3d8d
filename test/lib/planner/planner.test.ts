import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { InfeasibleError, InputError } from '../../../lib/errors';
import {
  capacity, capacityRps, costPer1MRequests, FRONT_END_MAX_UTILIZATION, FRONT_END_MS_PER_CALL, FRONT_END_MS_PER_REQUEST, frontEndUtilization, INF1_END_OF_SUPPORT, plan, planReport,
  saturationPerProcessRps, servingModel,
} from '../../../lib/planner';
import type { ModelProfile } from '../../../lib/profiles/types';

// A region with no built-in prices, so these prices are the only ones and every expectation is computed by hand.
const REGION = 'il-central-1';
function catalogWith(prices: Record<string, number>): Catalog {
  return Catalog.builtIn().withPriceFile(
    parsePriceFile(
      { prices: Object.entries(prices).map(([instanceType, usdPerHour]) => ({ instanceType, region: REGION, hosting: 'ec2', usdPerHour })) },
      'planner test',
    ),
  );
}
const catalog = catalogWith({ 'inf1.xlarge': 0.23, 'inf1.2xlarge': 0.36, 'inf2.xlarge': 0.76, 'inf2.8xlarge': 1.97 });

const b1 = { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'b1' } as const;
const b8 = { coreVersion: 'v2', coresPerProcess: 1, batchSize: 8, throughputRps: 1600, p50Ms: 5, p99Ms: 6, source: 'b8' } as const;
const inf1b4 = { coreVersion: 'v1', coresPerProcess: 1, batchSize: 4, throughputRps: 300, p50Ms: 10, p99Ms: 13, source: 'inf1' } as const;
const toy: ModelProfile = { id: 'toy', deviceMemoryGiB: 2, hostMemoryGiB: 2, hostCpuMsPerRequest: 0.5, measurements: [b1, b8, inf1b4] };
const ec2 = { region: REGION, hosting: 'ec2' } as const;

describe('the planner sizes in requests per second, queueing included', () => {
  // 5000 single-input requests/s at p99 20 ms, stock serving (the default) on the model server (the default).
  const report = planReport(toy, { throughputRps: 5000, p99Ms: 20 }, ec2, catalog);
  const chosen = report.chosen;

  test('GIVEN 5000 rps at p99 20 ms THEN four inf2.xlarge with two batch-1 processes win at $3.04/h', () => {
    expect(chosen.instanceType).toBe('inf2.xlarge');
    expect(chosen.serving).toBe('stock');
    expect(chosen.server).toBe('model-server');
    expect(chosen.batching).toBeNull();
    expect(chosen.batchSize).toBe(1);
    expect(chosen.processesPerInstance).toBe(2); // 2 NeuronCores; 4 vCPUs - 1 for the front end = 3
    expect(chosen.inputsPerRequest).toBe(1);
    expect(chosen.hostCpuMsPerRequest).toBe(0.5);
    // The model server's worker overlaps host work with the call: a process completes a call every max(device stage
    // 1 ms (1 / 1000 per s) + 0.06 ms hand-over, host stage 0.5 ms + 0.075 ms hand-over) = 1.06 ms: 943.4 requests/s
    // at saturation. The p99 target holds up to 1578.9 requests/s (84 % busy); 5000 x 1.2 / 1578.9 = 3.8 -> 4.
    expect(chosen.capacityPerInstanceRps).toBe(1578.9);
    expect(chosen.instanceCount).toBe(4);
    expect(chosen.hourlyCostUsd).toBeCloseTo(3.04, 12);
    expect(chosen.capacityRps).toBeCloseTo(4 * 1578.9, 0);
  });

  test('THEN the utilization and predicted p99 at the target rate are the M/G/c values computed by hand', () => {
    // Per instance 5000 / 4 = 1250 requests/s x 1.06 ms over 2 processes = 66.25 % busy.
    expect(chosen.utilization).toBeCloseTo(0.6625, 9);
    // Erlang C(2, a = 1.325) = 2ρ² / (1 + ρ) = 0.52801; drain 2 / 1.06 ms - 1250/s = 636.79/s; cs² is the row's,
    // exp((ln(2 / 1) / 2.3263)²) - 1 = 0.09284 (above the floor); Poisson arrivals (ca² = 1); the wait at its 99.5th
    // percentile: ln(0.52801 / 0.005) x (1 + 0.09284) / (2 x 636.79) s = 3.998 ms; + the call's p99 2 ms + 0.5 ms host
    // + 0.135 ms hand-over (a request still passes its own decode, call and encode in turn) + the server's 0.4 ms
    // path = 7.033 ms.
    expect(chosen.predictedP99Ms).toBeCloseTo(7.033, 3);
    expect(chosen.p50Ms).toBe(1);
    expect(chosen.p99Ms).toBe(2);
  });

  test('THEN the capacity is where the predicted p99 meets the target', () => {
    const model = servingModel(b1, { mode: 'stock', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 });
    expect(chosen.capacityPerInstanceRps).toBeCloseTo(capacityRps(model, 0.02), 1);
  });

  test('THEN costs are per request as sent', () => {
    expect(chosen.costPer1MRequestsUsd).toBeCloseTo((3.04 / (5000 * 3600)) * 1e6, 12);
    expect(chosen.costPer1MInferencesUsd).toBe(chosen.costPer1MRequestsUsd);
    expect(chosen.monthlyCostUsd).toBeCloseTo(3.04 * 730, 9);
  });

  test('THEN the naive layout (one process per instance) needs 8 instances: one queue of two processes beats two of one', () => {
    expect(chosen.naive.instanceCount).toBe(8);
    expect(chosen.naive.savingsPercent).toBeCloseTo((1 - 4 / 8) * 100, 9);
  });

  test('THEN each process owns one core and the chip it sits on', () => {
    expect(chosen.visibleCores).toEqual(['0', '1']);
    expect(chosen.processes.map((p) => p.devices)).toEqual([['/dev/neuron0'], ['/dev/neuron0']]);
  });

  test('THEN the alternatives are the best of every other instance type and row, best first', () => {
    const summary = report.alternatives.map((p) => `${p.instanceType} b=${p.batchSize} ${p.serving} n=${p.instanceCount}`);
    expect(summary[0]).toBe('inf2.8xlarge b=1 stock n=4');
    expect(summary).toContain('inf2.xlarge b=8 stock n=27');
    expect(report.alternatives.every((p, i, all) => i === 0 || all[i - 1].hourlyCostUsd <= p.hourlyCostUsd)).toBe(true);
    expect(report.alternatives.every((p) => p.server === 'model-server')).toBe(true);
  });

  test('the JSON form carries the fields the CLI promises', () => {
    const json = JSON.parse(JSON.stringify(report));
    for (const field of [
      'instanceType', 'hosting', 'instanceCount', 'processesPerInstance', 'coresPerProcess', 'batchSize', 'processes',
      'inputsPerRequest', 'serving', 'server', 'batching', 'capacityPerInstanceRps', 'capacityRps', 'predictedP99Ms', 'utilization',
      'p50Ms', 'p99Ms', 'hourlyCostUsd', 'costPer1MRequestsUsd', 'warnings',
    ]) {
      expect(json.chosen).toHaveProperty(field);
      expect(json.alternatives[0]).toHaveProperty(field);
    }
    expect(json.request.options.serving).toBe('stock');
    expect(json.request.options.server).toBe('model-server');
    expect(json.request.targets.inputsPerRequest).toBe(1);
  });
});

describe("a stock plan for a Neuron DLC's stock toolkit is charged the host work and the call one after the other", () => {
  // The same request as above, for a server that does not overlap them.
  const report = planReport(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, server: 'neuron-dlc' }, catalog);
  const chosen = report.chosen;

  test('GIVEN 5000 rps at p99 20 ms THEN six inf2.xlarge win at $4.56/h, where the model server needs four', () => {
    expect(chosen.instanceType).toBe('inf2.xlarge');
    expect(chosen.serving).toBe('stock');
    expect(chosen.server).toBe('neuron-dlc');
    expect(report.request.options.server).toBe('neuron-dlc');
    // One request keeps a process busy 1 ms (1 / 1000 per s) + 0.5 ms of host work + the hand-over with the front end
    // (0.06 ms a call + 0.075 ms a request) = 1.635 ms: 611.6 requests/s at saturation. The p99 target holds up to
    // 1059.6 requests/s (87 % busy); 5000 x 1.2 / 1059.6 = 5.66 -> 6 instances.
    expect(chosen.capacityPerInstanceRps).toBe(1059.6);
    expect(chosen.instanceCount).toBe(6);
    expect(chosen.hourlyCostUsd).toBeCloseTo(4.56, 12);
    expect(chosen.naive.instanceCount).toBe(14);
    expect(report.alternatives[0]).toMatchObject({ instanceType: 'inf2.8xlarge', batchSize: 1, instanceCount: 6, server: 'neuron-dlc' });
  });

  test('THEN the utilization and predicted p99 at the target rate are the M/G/c values computed by hand', () => {
    // Per instance 5000 / 6 = 833.3 requests/s x 1.635 ms over 2 processes = 68.125 % busy.
    expect(chosen.utilization).toBeCloseTo(0.68125, 9);
    // Erlang C(2, a = 1.3625) = 2ρ² / (1 + ρ) = 0.55209; drain 2 / 1.635 ms - 833.3/s = 389.91/s; cs² 0.09284;
    // ln(0.55209 / 0.005) x (1 + 0.09284) / (2 x 389.91) s = 6.593 ms; + 2 ms + 0.5 ms + 0.135 ms + 0.4 ms = 9.628 ms.
    expect(chosen.predictedP99Ms).toBeCloseTo(9.628, 3);
  });

  test('GIVEN host work a large part of a call THEN the model server holds more requests/s per instance than a DLC', () => {
    const heavy: ModelProfile = { ...toy, hostCpuMsPerRequest: 0.9 };
    const at = (server: 'model-server' | 'neuron-dlc') =>
      plan(heavy, { throughputRps: 2000, p99Ms: 20 }, { ...ec2, server, instanceTypes: ['inf2.xlarge'] }, catalog);
    const modelServer = at('model-server');
    const dlc = at('neuron-dlc');
    // Busy 1.06 ms (the device stage) against 1 + 0.06 + 0.9 + 0.075 = 2.035 ms a request.
    expect(modelServer.capacityPerInstanceRps).toBeGreaterThan(1.6 * dlc.capacityPerInstanceRps);
    expect(modelServer.instanceCount).toBeLessThan(dlc.instanceCount);
  });

  test("GIVEN serving 'any' THEN it considers stock only: the DLC's toolkit cannot batch", () => {
    const any = planReport(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, serving: 'any', server: 'neuron-dlc' }, catalog);
    expect(any.request.options.serving).toBe('any');
    expect([any.chosen, ...any.alternatives].every((p) => p.serving === 'stock' && p.server === 'neuron-dlc')).toBe(true);
    const onModelServer = planReport(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, serving: 'any' }, catalog);
    expect(onModelServer.alternatives.some((p) => p.serving === 'batching')).toBe(true);
  });

  test("GIVEN serving 'batching' THEN refused up front with the field, the value and the fix", () => {
    const run = () => plan(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, serving: 'batching', server: 'neuron-dlc' }, catalog);
    expect(run).toThrow(InputError);
    expect(run).toThrow(/serving='batching' with server='neuron-dlc'.*cannot batch; plan for the model server \(server: 'model-server', --server model-server\)/);
  });

  test('GIVEN an unknown server THEN refused with the choices', () => {
    expect(() => plan(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, server: 'torchserve' as never }, catalog))
      .toThrow("server='torchserve' is not supported; use one of: model-server, neuron-dlc");
  });

  test('GIVEN no plan fits THEN the headline names the server', () => {
    expect(() => plan(toy, { throughputRps: 50000, p99Ms: 20 }, { ...ec2, maxInstances: 2, server: 'neuron-dlc' }, catalog))
      .toThrow("(stock serving on a Neuron DLC's stock toolkit)");
  });

  test('GIVEN SageMaker hosting THEN a stock plan for the model server says a DLC image is refused, one for a DLC does not', () => {
    const sm = catalogWith({}).withPriceFile(parsePriceFile(
      { prices: [{ instanceType: 'inf2.xlarge', region: REGION, hosting: 'sagemaker', usdPerHour: 0.99 }] }, 'sagemaker test'));
    const at = (server: 'model-server' | 'neuron-dlc') =>
      plan(toy, { throughputRps: 500, p99Ms: 20 }, { region: REGION, hosting: 'sagemaker', server, instanceTypes: ['inf2.xlarge'] }, sm);
    expect(at('model-server').warnings.join('\n')).toMatch(/planned for the cdk-inferentia model server .*re-plan with server 'neuron-dlc' \(--server neuron-dlc\)/);
    expect(at('neuron-dlc').warnings.join('\n')).not.toMatch(/planned for the cdk-inferentia model server/);
  });
});

describe('stock and batching serving of the same measurement', () => {
  const onlyB8: ModelProfile = { ...toy, measurements: [b8] };
  const only = { ...ec2, instanceTypes: ['inf2.xlarge'] };

  test('GIVEN stock serving THEN every request is a whole padded batch-8 call: 197.6 requests/s per process at most', () => {
    // 8 / 1600 s = 5 ms a call + 0.06 ms hand-over, the device stage, longer than the host stage's 0.575 ms: 5.06 ms.
    const p = plan(onlyB8, { throughputRps: 5000, p99Ms: 20 }, only, catalog);
    expect(p.serving).toBe('stock');
    expect(p.warnings).toContain(
      'batch 8 without server batching serves at most 197.6 single-input requests/s per process: every request is one padded batch-8 call',
    );
    expect(p.capacityPerInstanceRps).toBeLessThan(2 * 197.6);
    expect(p.instanceCount).toBe(27);
    // On a DLC's toolkit 5 ms + 0.5 ms host work + 0.135 ms hand-over = 5.635 ms a request: 177.5.
    const dlc = plan(onlyB8, { throughputRps: 5000, p99Ms: 20 }, { ...only, server: 'neuron-dlc' }, catalog);
    expect(dlc.warnings).toContain(
      'batch 8 without server batching serves at most 177.5 single-input requests/s per process: every request is one padded batch-8 call',
    );
    expect(dlc.instanceCount).toBe(33);
  });

  test('GIVEN server batching THEN up to 8 requests share a call: 1581 requests/s per process at most, fewer instances', () => {
    // The worker's device stage: 5 ms a call + 0.06 ms hand-over = 5.06 ms for 8 requests; its host stage beside it:
    // 8 x (0.5 ms host work + 0.075 ms hand-over) = 4.6 ms. 8 / 5.06 ms = 1581 requests/s.
    const p = plan(onlyB8, { throughputRps: 5000, p99Ms: 20 }, { ...only, serving: 'batching' }, catalog);
    expect(p.serving).toBe('batching');
    expect(p.batching).toEqual({ maxBatchSize: 8, maxDelayMs: expect.any(Number) });
    expect(p.batching!.maxDelayMs).toBeGreaterThan(0);
    expect(p.batching!.maxDelayMs).toBeLessThan(20 - 6 - 0.5);
    expect(p.instanceCount).toBeLessThan(33);
    expect(p.predictedP99Ms).toBeLessThanOrEqual(20);
  });

  test('GIVEN serving any THEN the cheaper mode wins, and the other stays as an alternative', () => {
    const report = planReport(onlyB8, { throughputRps: 5000, p99Ms: 20 }, { ...only, serving: 'any' }, catalog);
    expect(report.chosen.serving).toBe('batching');
    expect(report.alternatives.map((p) => p.serving)).toEqual(['stock']);
  });

  test('GIVEN a batching plan for SageMaker THEN it warns that the endpoint needs the model server image', () => {
    const sm = Catalog.builtIn().withPriceFile(
      parsePriceFile({ prices: [{ instanceType: 'inf2.xlarge', region: REGION, hosting: 'sagemaker', usdPerHour: 0.99 }] }, 't'),
    );
    const p = plan(onlyB8, { throughputRps: 500, p99Ms: 20 }, { region: REGION, hosting: 'sagemaker', serving: 'batching' }, sm);
    expect(p.warnings.join('\n')).toMatch(/server batching needs .*NeuronSageMakerEndpoint with ModelImage\.fromServer, or NeuronEcsService \(a Neuron DLC's stock toolkit cannot run this plan\)/);
  });
});

describe('requests of several inputs', () => {
  const targets = { throughputRps: 1000, p99Ms: 20, inputsPerRequest: 4 };

  test('GIVEN 4 inputs a request THEN a batch-1 model cannot serve them, in either mode', () => {
    const report = planReport(toy, targets, { ...ec2, serving: 'any', instanceTypes: ['inf2.xlarge'] }, catalog);
    const b1Reasons = report.rejected.filter((r) => r.measurement === 'g=1 b=1').map((r) => r.reason);
    expect(b1Reasons).toEqual([
      'a stock server makes one device call per request: requests of 4 inputs need a model compiled for batch 4 or more, this one is batch 1',
      'requests of 4 inputs do not fit one batch of 1; the server never splits a request',
    ]);
  });

  test('GIVEN 4 inputs a request THEN batching puts 2 requests in a batch of 8 and host work counts every input', () => {
    const p = plan(toy, targets, { ...ec2, serving: 'batching', instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(p.inputsPerRequest).toBe(4);
    expect(p.hostCpuMsPerRequest).toBe(2); // 4 x 0.5 ms
    expect(p.batching?.maxBatchSize).toBe(8);
    expect(p.costPer1MInferencesUsd).toBeCloseTo(p.costPer1MRequestsUsd / 4, 12);
  });
});

describe('the planner applies each limit', () => {
  test('GIVEN SageMaker hosting THEN the instance type carries the ml. prefix', () => {
    const sm = Catalog.builtIn().withPriceFile(
      parsePriceFile({ prices: [{ instanceType: 'inf2.xlarge', region: REGION, hosting: 'sagemaker', usdPerHour: 0.99 }] }, 't'),
    );
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: REGION, hosting: 'sagemaker' }, sm);
    expect(p.instanceType).toBe('ml.inf2.xlarge');
    expect(p.instance.name).toBe('inf2.xlarge');
  });

  test('minInstances raises the count even when one instance is enough', () => {
    const p = plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, minInstances: 3 }, catalog);
    expect(p.instanceCount).toBe(3);
    expect(p.naive.instanceCount).toBe(3);
  });

  test('headroom multiplies the target: instances = ceil(target x (1 + headroom) / capacity)', () => {
    const at = (throughputRps: number, headroom: number) => plan(toy, { throughputRps, p99Ms: 20 }, { ...ec2, headroom }, catalog).instanceCount;
    // Capacity 1578.95 requests/s per instance (1578.9 in the plan, rounded to 0.1).
    expect(at(2 * 1578.9, 0)).toBe(2);
    expect(at(2 * 1579.0, 0)).toBe(3);
    expect(at(2 * 1578.9, 0.2)).toBe(3);
  });

  test('maxInstances rejects candidates that need more instances than allowed, in request terms', () => {
    const run = () => plan(toy, { throughputRps: 5000, p99Ms: 20 }, { ...ec2, maxInstances: 3, instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(run).toThrow(InfeasibleError);
    expect(run).toThrow(
      'inf2: inf2.xlarge g=1 b=1: needs 4 instances (1578.9 requests/s each within p99 20 ms; batch 1 without server ' +
        'batching serves at most 943.4 single-input requests/s per process) but maxInstances is 3',
    );
  });

  test('a peak target sets the autoscaling maximum, capped by maxInstances with a warning', () => {
    const p = plan(toy, { throughputRps: 1000, p99Ms: 20, peakThroughputRps: 9000 }, ec2, catalog);
    expect(p.instanceCount).toBe(1); // 1000 x 1.2 / 1578.9 = 0.76
    expect(p.maxInstanceCount).toBe(7); // 9000 x 1.2 / 1578.9 = 6.84
    const capped = plan(toy, { throughputRps: 1000, p99Ms: 20, peakThroughputRps: 9000 }, { ...ec2, maxInstances: 3 }, catalog);
    expect(capped.maxInstanceCount).toBe(3);
    expect(capped.warnings.join('\n')).toMatch(/needs 7 instances; maxInstances limits it to 3/);
  });

  test('GIVEN 3 GiB of host memory per process on inf1.xlarge THEN it runs 2 processes and says so', () => {
    // inf1.xlarge: 8 GiB x 0.9 = 7.2 GiB holds 2 x 3 GiB; 4 vCPUs - 1 allow 3; 4 NeuronCores allow 4.
    const heavy: ModelProfile = { ...toy, hostMemoryGiB: 3 };
    const p = plan(heavy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, instanceTypes: ['inf1.xlarge'] }, catalog);
    expect(p.processesPerInstance).toBe(2);
    expect(p.idleCoresPerInstance).toBe(2);
    expect(p.visibleCores).toEqual(['0', '2']);
    expect(p.warnings.join('\n')).toMatch(/runs 2 of the 4 processes the NeuronCores allow/);
  });

  test('GIVEN processesPerInstance=3 on inf1.xlarge THEN the warning names the request, not host memory or vCPUs', () => {
    const p = plan(toy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, instanceTypes: ['inf1.xlarge'], processesPerInstance: 2 }, catalog);
    expect(p.processesPerInstance).toBe(2);
    const warnings = p.warnings.join('\n');
    expect(warnings).toMatch(/runs 2 of the 4 processes the NeuronCores allow, as processesPerInstance=2 asks/);
    expect(warnings).not.toMatch(/host memory|vCPUs/);
  });

  test('GIVEN a region the catalog has no prices for THEN the library error names the catalog argument, not only a CLI flag', () => {
    expect(() => plan(toy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, region: 'ca-west-1' }, catalog))
      .toThrow(/Catalog\.builtIn\(\)\.withPriceFile\(parsePriceFile\(json, 'prices\.json'\)\)/);
  });

  test('GIVEN the default host memory on inf1.xlarge THEN one vCPU is kept for the front end: 3 processes, 1 idle core', () => {
    const p = plan(toy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, instanceTypes: ['inf1.xlarge'] }, catalog);
    expect(p.processesPerInstance).toBe(3);
    expect(p.visibleCores).toEqual(['0', '1', '2']);
    expect(p.warnings).toContain('1 of 4 NeuronCores per instance stay idle');
  });

  test('GIVEN more vCPUs per process than the instance has THEN the candidate is rejected for vCPUs', () => {
    const hungry: ModelProfile = { ...toy, vcpuPerProcess: 5 };
    const report = planReport(hungry, { throughputRps: 100, p99Ms: 10 }, ec2, catalog);
    expect(report.chosen.instanceType).toBe('inf2.8xlarge'); // 32 vCPUs; inf2.xlarge has 4
    expect(report.rejected).toContainEqual(expect.objectContaining({ instanceType: 'inf2.xlarge', code: 'vcpu' }));
  });

  test('GIVEN host memory above 90 % of every instance THEN the message names the largest priced instance and its limit', () => {
    const big: ModelProfile = { ...toy, hostMemoryGiB: 120 };
    expect(() => plan(big, { throughputRps: 100, p99Ms: 10 }, ec2, catalog)).toThrow(
      'inf2: one process needs 120 GiB of host memory; the largest priced inf2 instance (inf2.8xlarge) allows 115.2 GiB',
    );
  });

  test('GIVEN a measurement with its own memory THEN it is charged that, not the profile figure', () => {
    const perRow: ModelProfile = { ...toy, deviceMemoryGiB: 40, measurements: [{ ...b1, deviceMemoryGiB: 1 }, { ...b8, deviceMemoryGiB: 40 }] };
    const report = planReport(perRow, { throughputRps: 100, p99Ms: 20 }, { ...ec2, instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(report.chosen.batchSize).toBe(1);
    expect(report.chosen.deviceMemoryGiB).toBe(1);
    expect(report.rejected).toContainEqual(expect.objectContaining({ measurement: 'g=1 b=8', code: 'device-memory' }));
  });

  test('GIVEN a pinned process count THEN it is used when it fits the cores, else the candidate is rejected', () => {
    const one = plan(toy, { throughputRps: 100, p99Ms: 10 }, { ...ec2, processesPerInstance: 1, instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(one.processesPerInstance).toBe(1);
    expect(one.idleCoresPerInstance).toBe(1);
    expect(() =>
      plan(toy, { throughputRps: 100, p99Ms: 10 }, { ...ec2, processesPerInstance: 3, instanceTypes: ['inf2.xlarge'] }, catalog),
    ).toThrow('processesPerInstance=3 x 1 NeuronCores needs 3 but inf2.xlarge has 2');
  });

  test('RI-effective pricing uses the Neuron RI rates', () => {
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: 'us-east-1', hosting: 'ec2', pricing: 'ri-effective', instanceTypes: ['inf2.xlarge'] });
    expect(p.price.kind).toBe('ri-effective');
    expect(p.price.usdPerHour).toBe(0.328);
  });

  test('an UNVERIFIED price is carried into the plan warnings', () => {
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: 'us-east-1', hosting: 'sagemaker', instanceTypes: ['inf2.xlarge'] });
    expect(p.price.unverified).toBe(true);
    expect(p.warnings.join('\n')).toMatch(/UNVERIFIED/);
  });

  test('GIVEN more than 10 instances THEN the plan warns about quotas', () => {
    const p = plan(toy, { throughputRps: 20000, p99Ms: 20 }, { ...ec2, instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(p.warnings.join('\n')).toMatch(/up to \d+ inf2.xlarge instances: check your quota first/);
  });
});

describe('layouts Neuron allows, and only those', () => {
  const threeCore = { coreVersion: 'v1', coresPerProcess: 3, batchSize: 1, throughputRps: 500, p50Ms: 2, p99Ms: 3, source: 'g3' } as const;
  const c = catalogWith({ 'inf1.6xlarge': 1.18, 'inf2.24xlarge': 6.49 });

  test('GIVEN a 3-core model on a 16-core inf1.6xlarge THEN five 3-core groups run and one core idles', () => {
    const p = plan({ ...toy, measurements: [threeCore] }, { throughputRps: 100, p99Ms: 20 }, { ...ec2, instanceTypes: ['inf1.6xlarge'] }, c);
    expect(p.processesPerInstance).toBe(5);
    expect(p.idleCoresPerInstance).toBe(1);
    expect(p.visibleCores).toEqual(['0-2', '3-5', '6-8', '9-11', '12-14']);
    expect(p.warnings).toContain('1 of 16 NeuronCores per instance stay idle');
  });

  test('GIVEN a 3-core model on Inferentia2 THEN it is rejected: Neuron supports groups of 1, 2, 4, 8 or 24 there', () => {
    const report = planReport(
      { ...toy, measurements: [threeCore, { ...threeCore, coreVersion: 'v2' }, b1] },
      { throughputRps: 100, p99Ms: 20 },
      { ...ec2, instanceTypes: ['inf2.24xlarge'] },
      c,
    );
    expect(report.rejected).toContainEqual(
      expect.objectContaining({
        code: 'layout',
        reason: 'a 3-core group is not a NeuronCore group size the Neuron SDK supports on inf2 (1, 2, 4, 8)',
      }),
    );
  });

  test('every Inf1 plan names the last Neuron SDK, DLAMI and DLC that support Inf1', () => {
    const p = plan(toy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, instanceTypes: ['inf1.xlarge'] }, catalog);
    expect(p.warnings).toContain(INF1_END_OF_SUPPORT);
    expect(INF1_END_OF_SUPPORT).toMatch(/Neuron SDK for Inf1 is 2\.26/);
    expect(INF1_END_OF_SUPPORT).toMatch(/pytorch-1\.13-inf1/);
    expect(INF1_END_OF_SUPPORT).toMatch(/pytorch-inference-neuron:1\.13\.1-neuron-py310-sdk2\.20\.2/);
    expect(plan(toy, { throughputRps: 50, p99Ms: 40 }, { ...ec2, instanceTypes: ['inf2.xlarge'] }, catalog).warnings).not.toContain(INF1_END_OF_SUPPORT);
  });
});

describe('ties are broken by predicted p99, then fewer instances, then the instance name', () => {
  test('GIVEN equal cost THEN the lower predicted p99 wins', () => {
    const twin: ModelProfile = {
      ...toy,
      measurements: [
        { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 3, source: 'slow' },
        { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'fast' },
      ],
    };
    expect(plan(twin, { throughputRps: 100, p99Ms: 20 }, { ...ec2, instanceTypes: ['inf2.xlarge'] }, catalog).measurement.source).toBe('fast');
  });

  test('GIVEN equal cost, p99 and count THEN the instance name decides', () => {
    const c = catalogWith({ 'trn1.2xlarge': 1, 'inf2.xlarge': 1 });
    const anyChip: ModelProfile = { ...toy, measurements: [b1] };
    expect(plan(anyChip, { throughputRps: 100, p99Ms: 20 }, ec2, c).instanceType).toBe('inf2.xlarge');
  });
});

describe('infeasible targets fail with one reason per family, and the rejections', () => {
  test('GIVEN host work per request at or above the p99 THEN one reason says host work alone decides, with the fix', () => {
    // GIVEN 0.5 ms per input and requests of 5 inputs: 2.5 ms before any device time, against a 2.5 ms target
    try {
      plan(toy, { throughputRps: 100, p99Ms: 2.5, inputsPerRequest: 5 }, ec2, catalog);
      throw new Error('expected InfeasibleError');
    } catch (e) {
      expect(e).toBeInstanceOf(InfeasibleError);
      const err = e as InfeasibleError;
      expect(err.message).toMatch(/: host work alone exceeds the target\./);
      expect(err.reasons).toEqual([
        "2.5 ms of host CPU per request (the profile's hostCpuMsPerRequest, x 5 inputs) is at least the p99 target of 2.5 ms before any device time, so no instance type can meet it",
        expect.stringMatching(/pass --host-ms-per-request to plan or set hostCpuMsPerRequest in the profile; otherwise raise the p99 target above 4\.5 ms/),
      ]);
    }
  });

  test('GIVEN a call that fits and host work that tips it over THEN the rejection says so and names the origin', () => {
    const labelled: ModelProfile = { ...toy, hostCpuSource: 'measured on my host; details' };
    expect(() => plan(labelled, { throughputRps: 100, p99Ms: 2.2 }, ec2, catalog)).toThrow(
      'inf2: g=1 b=1: measured p99 2 ms + 0.5 ms of host work per request exceeds the target 2.2 ms: the call alone fits, ' +
        'the host work (0.5 ms from measured on my host) does not',
    );
  });

  test('GIVEN a p99 below every call THEN the message names each measured p99 and the host work', () => {
    expect(() => plan(toy, { throughputRps: 100, p99Ms: 2.2 }, ec2, catalog)).toThrow(
      'inf2: g=1 b=1: measured p99 2 ms + 0.5 ms of host work per request exceeds the target 2.2 ms',
    );
  });

  test('GIVEN a model larger than any core group THEN the message gives the need and the largest group', () => {
    const huge: ModelProfile = { ...toy, deviceMemoryGiB: 41 };
    try {
      plan(huge, { throughputRps: 100, p99Ms: 50 }, ec2, catalog);
      throw new Error('expected InfeasibleError');
    } catch (e) {
      expect(e).toBeInstanceOf(InfeasibleError);
      const reasons = (e as InfeasibleError).reasons;
      expect(reasons.find((r) => r.startsWith('inf2:'))).toMatch(
        /^inf2: g=1 b=1: needs 41 GiB of device memory per process; 1 NeuronCore-v2 core\(s\) hold 16 GiB; the largest core group measured holds 16 GiB/,
      );
      expect(reasons.find((r) => r.startsWith('inf1:'))).toMatch(/the largest core group measured holds 2 GiB/);
      // AND a family with no price here says where it has one and how to add the missing one
      expect(reasons.find((r) => r.startsWith('trn1:'))).toMatch(new RegExp(`^trn1: no on-demand ec2 price for trn1\\.2xlarge, trn1\\.32xlarge in ${REGION}; `
        + 'the catalog prices them for ec2 on-demand in us-east-1, us-east-2, us-west-2: plan there \\(--region us-east-1\\), or add the price with a price file '
        + `\\(\`cdk-inferentia catalog refresh --regions ${REGION} --instance-types trn1\\.2xlarge,trn1\\.32xlarge --out prices\\.json\``));
    }
  });

  test('GIVEN maxInstances too low for any candidate THEN the message gives the candidate needing the fewest', () => {
    expect(() => plan(toy, { throughputRps: 50000, p99Ms: 20 }, { ...ec2, maxInstances: 2 }, catalog)).toThrow(
      /inf2: inf2\.(8)?xlarge g=1 b=1: needs 39 instances/,
    );
  });

  test('GIVEN an absurd throughput THEN no plan: more than 10,000 instances is not a plan', () => {
    expect(() => plan(toy, { throughputRps: 1e300, p99Ms: 20 }, ec2, catalog)).toThrow(/more than 10,000 instances is not a plan/);
  });

  test('the error carries the resolved request and every rejection, for --json', () => {
    try {
      plan(toy, { throughputRps: 100, p99Ms: 1 }, ec2, catalog);
      throw new Error('expected InfeasibleError');
    } catch (e) {
      const details = (e as InfeasibleError).details as { request: { targets: { p99Ms: number } }; rejected: unknown[] };
      expect(details.request.targets.p99Ms).toBe(1);
      expect(details.rejected.length).toBeGreaterThan(3);
    }
  });
});

describe('bad input fails early with every problem named', () => {
  const cases: [string, () => unknown, string][] = [
    ['zero throughput', () => plan(toy, { throughputRps: 0, p99Ms: 10 }, ec2, catalog), 'throughput=0 must be a positive number'],
    ['negative p99', () => plan(toy, { throughputRps: 10, p99Ms: -1 }, ec2, catalog), 'p99=-1 must be a positive number'],
    ['zero inputs', () => plan(toy, { throughputRps: 10, p99Ms: 10, inputsPerRequest: 0 }, ec2, catalog), 'inputsPerRequest=0 must be a whole number, at least 1'],
    ['unknown region', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: 'mars-1', hosting: 'ec2' }, catalog), "region='mars-1' is not an AWS region code"],
    ['unknown hosting', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: REGION, hosting: 'eks' as 'ec2' }, catalog), "hosting='eks' is not supported; use one of: ec2, sagemaker"],
    ['unknown serving', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, serving: 'fast' as 'stock' }, catalog), "serving='fast' is not supported; use one of: stock, batching, any"],
    ['negative headroom', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, headroom: -0.1 }, catalog), 'headroom=-0.1 must be a fraction from 0 to 1'],
    ['headroom as a percentage', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, headroom: 20 }, catalog), 'headroom=20 must be a fraction from 0 to 1 (0.2 keeps 20 % spare capacity); for 20 % give 0.2'],
    ['max below min', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, minInstances: 3, maxInstances: 2 }, catalog), 'maxInstances=2 is below minInstances=3'],
    ['unknown instance', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, instanceTypes: ['p4d.24xlarge'] }, catalog), "instance type 'p4d.24xlarge' is not in the catalog"],
    ['no instance types', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, instanceTypes: [] }, catalog), 'instanceTypes is empty'],
    ['region without prices', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: 'ap-south-2', hosting: 'ec2' }, catalog), "no on-demand ec2 prices for region ap-south-2"],
    [
      'RI prices missing',
      () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: 'ap-south-2', hosting: 'ec2', pricing: 'ri-effective' }, catalog),
      'catalog refresh fetches on-demand prices only',
    ],
    ['peak below steady', () => plan(toy, { throughputRps: 10, p99Ms: 10, peakThroughputRps: 5 }, ec2, catalog), 'peakThroughput=5 is below throughput=10'],
  ];
  test.each(cases)('%s', (_name, run, message) => {
    expect(run).toThrow(InputError);
    expect(run).toThrow(message);
  });

  test('several problems are reported together', () => {
    try {
      plan(toy, { throughputRps: -5, p99Ms: 0 }, { region: 'nowhere', hosting: 'ec2', headroom: -1 }, catalog);
      throw new Error('expected InputError');
    } catch (e) {
      expect((e as InputError).problems).toHaveLength(4);
    }
  });
});

describe('cost per 1M requests', () => {
  test('is hourly / (rps x 3600) x 1e6, the Neuron tables formula', () => {
    expect(costPer1MRequests(0.328, 2697.72)).toBeCloseTo(0.0337738, 6);
  });
});

describe('a measurement predicts only the chip it was measured on', () => {
  const measuredOn: ModelProfile = {
    ...toy,
    measurements: [
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 5000, p50Ms: 0.2, p99Ms: 0.3, source: 'trn1 row', instanceType: 'trn1.2xlarge' },
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'inf2 row', instanceType: 'inf2.xlarge' },
    ],
  };
  const c = catalogWith({ 'inf2.xlarge': 1, 'trn1.2xlarge': 1.5, 'trn1n.32xlarge': 30 });

  test('GIVEN a faster Trn1 row THEN Inf2 is sized from its own row', () => {
    const report = planReport(measuredOn, { throughputRps: 5000, p99Ms: 10 }, ec2, c);
    const inf2 = [report.chosen, ...report.alternatives].filter((p) => p.instance.family === 'inf2');
    expect(inf2.map((p) => p.measurement.source)).toEqual(['inf2 row']);
  });

  test('GIVEN a Trn1 row THEN it applies to Trn1n, which has the same chip', () => {
    const report = planReport(measuredOn, { throughputRps: 5000, p99Ms: 10 }, ec2, c);
    expect([report.chosen, ...report.alternatives].find((p) => p.instanceType === 'trn1n.32xlarge')?.measurement.source).toBe('trn1 row');
  });

  test('GIVEN only an Inf2 row THEN Trn1 is rejected for want of a measurement on its chip', () => {
    const inf2Only: ModelProfile = { ...measuredOn, measurements: [measuredOn.measurements[1]] };
    const report = planReport(inf2Only, { throughputRps: 100, p99Ms: 10 }, ec2, c);
    expect(report.rejected).toContainEqual(
      expect.objectContaining({ instanceType: 'trn1.2xlarge', code: 'no-measurement', reason: 'toy has no measurement on Trainium (trn1, trn1n) (NeuronCore-v2)' }),
    );
  });
});

describe("an instance holds no more than the model server's front ends carry", () => {
  // Device calls of 0.05 ms: 16 processes on inf2.8xlarge-sized hardware would hold far more than one core of HTTP.
  const fast = { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 20000, p50Ms: 0.05, p99Ms: 0.06, source: 'fast' } as const;
  const tiny: ModelProfile = { id: 'tiny', deviceMemoryGiB: 1, hostMemoryGiB: 1, hostCpuMsPerRequest: 0.01, measurements: [fast] };
  // Front-end CPU of a request that is a call of its own (0.13 + 0.25 = 0.38 ms since issue 30's cheaper path), in s.
  const aloneSeconds = (FRONT_END_MS_PER_REQUEST + FRONT_END_MS_PER_CALL) / 1000;

  test('GIVEN calls far cheaper than the HTTP front end THEN capacity per instance is 60 % of one core of front-end work per front end', () => {
    const chosen = plan(tiny, { throughputRps: 5000, p99Ms: 20 }, ec2, catalog);
    // One request per call: 0.38 ms of front end; 0.6 core / 0.38 ms = 1578.9 requests/s each.
    expect(chosen.frontEndsPerInstance).toBeGreaterThan(1);
    expect(chosen.capacityPerInstanceRps).toBeCloseTo((chosen.frontEndsPerInstance * 0.6) / aloneSeconds, 0);
    expect(chosen.warnings.some((w) => w.includes(`model server's ${chosen.frontEndsPerInstance} front ends carry`))).toBe(true);
  });

  test('GIVEN a large instance THEN its front ends, one per process at most and a vCPU each, bound it, not one core', () => {
    const options = { region: 'us-east-1', hosting: 'ec2' as const, instanceTypes: ['inf2.48xlarge'] };
    const chosen = plan(tiny, { throughputRps: 30000, p99Ms: 20 }, options, catalog);
    // 24 processes on 192 vCPUs: room for 24 front ends, each carrying 1578.9 requests/s.
    expect(chosen.processesPerInstance).toBe(24);
    expect(chosen.frontEndsPerInstance).toBe(24);
    expect(chosen.capacityPerInstanceRps).toBeCloseTo((24 * 0.6) / aloneSeconds, 0);
    const oneFrontEnd = capacity(servingModel(fast, { mode: 'stock', processes: 24, hostMsPerRequest: 0.01, requestsPerBatch: 1, maxDelayMs: 0 }), 0.02);
    expect(oneFrontEnd.rps).toBeCloseTo(0.6 / aloneSeconds, 0);
  });

  test('GIVEN calls the processes bound THEN one front end: a split queue pools less and buys nothing', () => {
    const slow = { ...fast, throughputRps: 200, p50Ms: 5, p99Ms: 6 };
    const chosen = plan({ ...tiny, measurements: [slow] }, { throughputRps: 300, p99Ms: 20 }, ec2, catalog);
    expect(chosen.frontEndsPerInstance).toBe(1);
  });

  test('GIVEN the same calls THEN the queue alone would allow more, and capacity() names the front end as the bound', () => {
    const model = servingModel(fast, { mode: 'stock', processes: 2, hostMsPerRequest: 0.01, requestsPerBatch: 1, maxDelayMs: 0 });
    const bound = capacity(model, 0.02);
    expect(bound.limitedBy).toBe('front-end');
    expect(frontEndUtilization(model, bound.rps)).toBeCloseTo(FRONT_END_MAX_UTILIZATION, 4);
    expect(2 * saturationPerProcessRps(model)).toBeGreaterThan(bound.rps * 5);
  });

  test('GIVEN batching THEN the per-call part of the front end is shared by the requests of a batch', () => {
    const batched = servingModel(b8, { mode: 'batching', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 8, maxDelayMs: 2 });
    const stock = servingModel(b1, { mode: 'stock', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 });
    // At 5000 requests/s batches are nearly full: about 0.13 + 0.25 / 8 ms per request instead of 0.38.
    expect(frontEndUtilization(batched, 5000)).toBeLessThan(5000 * (FRONT_END_MS_PER_REQUEST + FRONT_END_MS_PER_CALL / 7) / 1000);
    expect(frontEndUtilization(stock, 5000)).toBeCloseTo(5000 * aloneSeconds, 9);
  });
});

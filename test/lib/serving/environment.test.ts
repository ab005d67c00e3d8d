import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { InputError } from '../../../lib/errors';
import {
  DEFAULT_METRICS_NAMESPACE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MODEL_SERVER_ENV,
  modelServerEnvironment,
  type ModelServerPlan,
} from '../../../lib/serving';

const REPO = path.resolve(__dirname, '../../..');

const batchingPlan: ModelServerPlan = {
  batching: { maxBatchSize: 8, maxDelayMs: 2 },
  batchSize: 8,
  visibleCores: ['0', '1'],
};

function problemsOf(render: () => unknown): readonly string[] {
  try {
    render();
  } catch (error) {
    if (error instanceof InputError) return error.problems;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('the model server environment rendered from a plan', () => {
  test('GIVEN a batching plan THEN every variable carries the plan value or its documented default', () => {
    expect(modelServerEnvironment(batchingPlan, { metricsService: 'bert-endpoint' })).toEqual({
      MODEL_SERVER_MAX_BATCH_SIZE: '8',
      MODEL_SERVER_MAX_DELAY_MS: '2',
      // a batching plan is planned with the worker's host work overlapping its device calls
      MODEL_SERVER_OVERLAP: '1',
      MODEL_BATCH_SIZE: '8',
      MODEL_SERVER_VISIBLE_CORES: '0;1',
      // 16 batches of 8 for each of the 2 workers
      MODEL_SERVER_MAX_QUEUED_REQUESTS: '256',
      MODEL_SERVER_REQUEST_TIMEOUT_MS: `${DEFAULT_REQUEST_TIMEOUT_MS}`,
      MODEL_SERVER_METRICS_NAMESPACE: DEFAULT_METRICS_NAMESPACE,
      MODEL_SERVER_METRICS_SERVICE: 'bert-endpoint',
      MODEL_SERVER_METRICS_INTERVAL_MS: '10000',
      // no p99 given: the floor
      MODEL_SERVER_WATCHDOG_MS: '10000',
      // no hosting given: the limit off SageMaker, 25 MiB, and 8 such bodies
      MODEL_SERVER_MAX_BODY_BYTES: `${25 * 1024 * 1024}`,
      MODEL_SERVER_MAX_QUEUED_BYTES: `${8 * 25 * 1024 * 1024}`,
      MODEL_SERVER_READ_TIMEOUT_MS: '10000',
      MODEL_SERVER_IDLE_TIMEOUT_MS: '75000',
      MODEL_SERVER_MAX_CONNECTIONS: '2048',
      // no instance given: one front end
      MODEL_SERVER_FRONT_ENDS: '1',
    });
  });

  test('GIVEN the hosting THEN the body limit is SageMaker\'s own 6 MiB payload cap on SageMaker and 25 MiB on EC2', () => {
    const limits = (hosting?: 'sagemaker' | 'ec2') => {
      const env = modelServerEnvironment({ ...batchingPlan, hosting });
      return [env[MODEL_SERVER_ENV.maxBodyBytes], env[MODEL_SERVER_ENV.maxQueuedBytes]];
    };
    // InvokeEndpoint's Body: max 6291456 bytes in the SageMaker Runtime API model
    expect(limits('sagemaker')).toEqual(['6291456', `${8 * 6291456}`]);
    expect(limits('ec2')).toEqual([`${25 * 1024 * 1024}`, `${8 * 25 * 1024 * 1024}`]);
    expect(limits(undefined)).toEqual(limits('ec2'));
    // the caller's limit still wins, and the bytes bound is checked against the hosting's limit
    expect(modelServerEnvironment({ ...batchingPlan, hosting: 'sagemaker' }, { maxBodyBytes: 1000 })[MODEL_SERVER_ENV.maxBodyBytes]).toBe('1000');
    expect(problemsOf(() => modelServerEnvironment({ ...batchingPlan, hosting: 'sagemaker' }, { maxQueuedBytes: 6291455 }))).toEqual([
      'maxQueuedBytes=6291455 is below maxBodyBytes=6291456: a request of the largest allowed size could never be queued; set maxQueuedBytes to at least 6291456',
    ]);
  });

  test('GIVEN the plan\'s front ends THEN they are rendered; a count that does not share the workers evenly is refused', () => {
    const twelve = { ...batchingPlan, visibleCores: Array.from({ length: 12 }, (_, i) => `${i}`) };
    expect(modelServerEnvironment({ ...twelve, frontEndsPerInstance: 6 })[MODEL_SERVER_ENV.frontEnds]).toBe('6');
    expect(problemsOf(() => modelServerEnvironment({ ...twelve, frontEndsPerInstance: 5 }))).toEqual([
      'frontEndsPerInstance=5 must be a whole number of front ends that share the 12 worker(s) of visibleCores evenly (a divisor of their count); plan again to get one',
    ]);
  });

  test('GIVEN no plan\'s front ends THEN one per 4 vCPUs, a divisor of the workers, with a vCPU beside each worker', () => {
    const frontEnds = (vcpus: number, workers = 2) =>
      modelServerEnvironment({ ...batchingPlan, visibleCores: Array.from({ length: workers }, (_, i) => `${i}`), instance: { vcpus } })[MODEL_SERVER_ENV.frontEnds];
    expect([4, 8, 32].map((v) => frontEnds(v))).toEqual(['1', '2', '2']);
    expect([frontEnds(96, 12), frontEnds(192, 24), frontEnds(32, 8), frontEnds(16, 3)]).toEqual(['12', '24', '8', '3']);
    expect(frontEnds(4, 4)).toBe('1');
  });

  test('GIVEN the plan\'s device-call p99 THEN the watchdog allows 10 of them, at least 10 s, at most the deadline', () => {
    expect(modelServerEnvironment({ ...batchingPlan, p99Ms: 12 })[MODEL_SERVER_ENV.watchdogMs]).toBe('10000');
    expect(modelServerEnvironment({ ...batchingPlan, p99Ms: 2500.5 })[MODEL_SERVER_ENV.watchdogMs]).toBe('25005');
    expect(modelServerEnvironment({ ...batchingPlan, p99Ms: 9000 }, { requestTimeoutMs: 30_000 })[MODEL_SERVER_ENV.watchdogMs])
      .toBe('30000');
    expect(problemsOf(() => modelServerEnvironment({ ...batchingPlan, p99Ms: 0 }))).toEqual([
      'p99Ms=0 must be the measured p99 of one device call in milliseconds, above 0',
    ]);
  });

  test('WHEN the bytes bound could not hold one maximal body THEN it is refused with the fix', () => {
    expect(problemsOf(() => modelServerEnvironment(batchingPlan, { maxBodyBytes: 1000, maxQueuedBytes: 999 }))).toEqual([
      'maxQueuedBytes=999 is below maxBodyBytes=1000: a request of the largest allowed size could never be queued; set maxQueuedBytes to at least 1000',
    ]);
  });

  test('GIVEN a plan without batching THEN a device call takes one request of up to the compiled batch and never waits', () => {
    const env = modelServerEnvironment({ batching: null, batchSize: 4, visibleCores: ['0-1', '2-3'] });
    expect(env[MODEL_SERVER_ENV.maxBatchSize]).toBe('4');
    expect(env[MODEL_SERVER_ENV.maxDelayMs]).toBe('0');
    expect(env[MODEL_SERVER_ENV.visibleCores]).toBe('0-1;2-3');
    // a stock plan made for the model server (the default) is planned with host work overlapping device calls
    expect(env[MODEL_SERVER_ENV.overlap]).toBe('1');
    expect(modelServerEnvironment({ batching: null, server: 'model-server', batchSize: 4, visibleCores: ['0'] })[MODEL_SERVER_ENV.overlap]).toBe('1');
  });

  test("GIVEN a plan made for a Neuron DLC's stock toolkit THEN the workers run host work and the call one after the other, as it was planned", () => {
    const env = modelServerEnvironment({ batching: null, server: 'neuron-dlc', batchSize: 4, visibleCores: ['0-1', '2-3'] });
    expect(env[MODEL_SERVER_ENV.overlap]).toBe('0');
    expect(env[MODEL_SERVER_ENV.maxDelayMs]).toBe('0');
  });

  test("GIVEN a plan for a Neuron DLC that batches, or an unknown server THEN refused with the fix", () => {
    expect(problemsOf(() => modelServerEnvironment({ ...batchingPlan, server: 'neuron-dlc' }))).toEqual([
      "server='neuron-dlc' with batching: a plan made for a Neuron DLC's stock toolkit serves one request per call; re-plan with { server: 'model-server' } for server batching",
    ]);
    expect(problemsOf(() => modelServerEnvironment({ ...batchingPlan, server: 'torchserve' as never }))).toEqual([
      `server="torchserve" is not a server a plan is made for; use 'model-server' or 'neuron-dlc'`,
    ]);
  });

  test('GIVEN batch-1 workers THEN the default queue holds 64 requests per worker, not 16 batches of one', () => {
    const env = modelServerEnvironment({ batching: null, batchSize: 1, visibleCores: ['0', '1'] });
    expect(env[MODEL_SERVER_ENV.maxQueuedRequests]).toBe('128');
  });

  test('GIVEN core groups written as lists THEN they pass through unchanged', () => {
    const env = modelServerEnvironment({ ...batchingPlan, visibleCores: ['51,52', '53'] });
    expect(env[MODEL_SERVER_ENV.visibleCores]).toBe('51,52;53');
  });

  test('WHEN the plan cannot be served THEN every problem is reported at once with its value and fix', () => {
    const problems = problemsOf(() =>
      modelServerEnvironment(
        { batching: { maxBatchSize: 16, maxDelayMs: -1 }, batchSize: 8, visibleCores: ['0-1', '1', '3-2'] },
        { requestTimeoutMs: 0, metricsService: '' },
      ),
    );
    expect(problems).toEqual([
      'batching.maxBatchSize=16 exceeds batchSize=8, the batch the model was compiled for; use at most 8 or compile for a larger batch',
      'batching.maxDelayMs=-1 must be a number of milliseconds, 0 or more',
      'visibleCores gives NeuronCore 1 to workers 0 and 1; a NeuronCore belongs to one process only: give each worker its own cores',
      'visibleCores[2]="3-2" is not a NEURON_RT_VISIBLE_CORES value; use an index ("3"), an ascending range ("2-3") or a list ("51,52")',
      'requestTimeoutMs=0 must be a whole number, at least 1',
      'metricsService="" must be 1 to 255 characters (a CloudWatch name)',
    ]);
  });

  test('WHEN no worker has cores THEN the message says what to give', () => {
    expect(problemsOf(() => modelServerEnvironment({ ...batchingPlan, visibleCores: [] }))).toEqual([
      'visibleCores=[] must name the NeuronCores of at least one worker, e.g. ["0", "1"]',
    ]);
  });
});

describe('the Python server reads the same contract', () => {
  // The server's own check (`python3 -m serving.config`) parses what we render: names and formats agree across languages.
  test('GIVEN the rendered environment WHEN the server checks it THEN it accepts every value as rendered', () => {
    const env = modelServerEnvironment({ batching: { maxBatchSize: 4, maxDelayMs: 2.5 }, batchSize: 8, visibleCores: ['0-1', '2-3'] });
    const result = spawnSync('/usr/bin/python3', ['-m', 'serving.config'], {
      cwd: REPO,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      max_batch_size: 4,
      compiled_batch_size: 8,
      max_delay_s: 0.0025,
      visible_cores: ['0-1', '2-3'],
      max_queued_requests: 128,
      request_timeout_s: DEFAULT_REQUEST_TIMEOUT_MS / 1000,
      metrics_namespace: DEFAULT_METRICS_NAMESPACE,
      metrics_interval_s: 10,
      watchdog_s: 10,
      max_body_bytes: 25 * 1024 * 1024,
      max_queued_bytes: 8 * 25 * 1024 * 1024,
      read_timeout_s: 10,
      idle_timeout_s: 75,
      max_connections: 2048,
      front_ends: 1,
      overlap: true,
    });
  });

  test('GIVEN a variable the contract names is missing WHEN the server checks THEN it exits 2 naming it', () => {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, ...modelServerEnvironment(batchingPlan) };
    delete env[MODEL_SERVER_ENV.maxDelayMs];
    const result = spawnSync('/usr/bin/python3', ['-m', 'serving.config'], { cwd: REPO, env, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('MODEL_SERVER_MAX_DELAY_MS is not set');
  });
});

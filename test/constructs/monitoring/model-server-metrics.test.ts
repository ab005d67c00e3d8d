import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { ModelServerMetrics } from '../../../constructs/monitoring/model-server-metrics';
import { InputError } from '../../../lib/errors';
import {
  MODEL_SERVER_NEURON_MONITOR_METRICS,
  MODEL_SERVER_SERVICE_COUNTERS,
  MODEL_SERVER_WORKER_COUNTERS,
  MODEL_SERVER_WORKER_SAMPLES,
} from '../../../lib/serving/metrics';

/** `NAME = (("Metric", "Unit"), ...)` tuples of a serving/ module, read from the source so a rename there fails here. */
function pythonMetricTuples(name: string, file = 'metrics.py'): Array<[string, string]> {
  const source = readFileSync(path.join(__dirname, '..', '..', '..', 'serving', file), 'utf8');
  const line = source.split('\n').find((l) => l.startsWith(`${name} = (`));
  if (line === undefined) {
    throw new Error(`serving/metrics.py no longer defines ${name}`);
  }
  return [...line.matchAll(/\("(\w+)", "(\w+)"\)/g)].map((m) => [m[1], m[2]]);
}

function pythonDimensionSets(): string[] {
  const source = readFileSync(path.join(__dirname, '..', '..', '..', 'serving', 'metrics.py'), 'utf8');
  return [...source.matchAll(/self\._line\(timestamp, (\[\[.*?\]\]),/g)].map((m) => m[1]);
}

const metrics = new ModelServerMetrics({ namespace: 'CdkInferentia/ModelServer', service: 'my-endpoint', workers: 2 });

describe('ModelServerMetrics names exactly what serving/metrics.py writes', () => {
  test.each([
    ['WORKER_COUNTERS', MODEL_SERVER_WORKER_COUNTERS],
    ['WORKER_SAMPLES', MODEL_SERVER_WORKER_SAMPLES],
    ['SERVICE_COUNTERS', MODEL_SERVER_SERVICE_COUNTERS],
  ])('GIVEN the Python %s THEN the TypeScript contract lists the same names and units', (pythonName, contract) => {
    const python = pythonMetricTuples(pythonName);
    expect(python.length).toBeGreaterThan(0);
    expect(Object.values(contract).map((m) => [m.name, m.unit]).sort()).toEqual([...python].sort());
  });

  test('GIVEN the neuron-monitor adapter THEN neuronCoreUtilization() reads its metric, by core', () => {
    const python = pythonMetricTuples('METRICS', 'neuron_monitor.py');
    expect(Object.values(MODEL_SERVER_NEURON_MONITOR_METRICS).map((m) => [m.name, m.unit])).toEqual(python);
    const source = readFileSync(path.join(__dirname, '..', '..', '..', 'serving', 'neuron_monitor.py'), 'utf8');
    expect(source).toContain('"Dimensions": [["Service"], ["Service", "NeuronCore"]]');
    expect(metrics.neuronCoreUtilization()).toMatchObject({ metricName: 'NeuronCoreUtilization', unit: 'Percent', statistic: 'Average' });
    expect(metrics.neuronCoreUtilization({ core: 3 }).dimensions).toEqual({ Service: 'my-endpoint', NeuronCore: '3' });
    expect(() => metrics.neuronCoreUtilization({ core: 1.5 })).toThrow(/core=1.5 must be a NeuronCore index/);
  });

  test('GIVEN the Python lines THEN workers write [Service] and [Service, Worker], the service line [Service] only', () => {
    expect(pythonDimensionSets()).toEqual(['[["Service"], ["Service", "Worker"]]', '[["Service"]]']);
  });

  test.each([
    ['batchSize', 'BatchSize', 'Count'],
    ['queueWait', 'QueueWait', 'Milliseconds'],
    ['deviceTime', 'DeviceTime', 'Milliseconds'],
    ['requests', 'Requests', 'Count'],
    ['inputs', 'Inputs', 'Count'],
    ['batches', 'Batches', 'Count'],
    ['workerRestarts', 'WorkerRestarts', 'Count'],
  ] as const)('WHEN %s() is read for worker 1 THEN it is %s in %s with Service and Worker dimensions', (method, name, unit) => {
    const all = metrics[method]();
    const one = metrics[method]({ worker: 1 });
    expect(pythonMetricTuples('WORKER_COUNTERS').concat(pythonMetricTuples('WORKER_SAMPLES'))).toContainEqual([name, unit]);
    expect(all).toMatchObject({ namespace: 'CdkInferentia/ModelServer', metricName: name, unit });
    expect(all.dimensions).toEqual({ Service: 'my-endpoint' });
    expect(one.dimensions).toEqual({ Service: 'my-endpoint', Worker: '1' });
  });

  test.each([
    ['queueFull', 'QueueFull'],
    ['deadlineExceeded', 'DeadlineExceeded'],
    ['workerErrors', 'WorkerErrors'],
  ] as const)('WHEN %s() is read THEN it is the service counter %s, summed, with the Service dimension only', (method, name) => {
    const metric = metrics[method]();
    expect(pythonMetricTuples('SERVICE_COUNTERS')).toContainEqual([name, 'Count']);
    expect(metric).toMatchObject({ metricName: name, statistic: 'Sum', unit: 'Count' });
    expect(metric.dimensions).toEqual({ Service: 'my-endpoint' });
  });

  test('WHEN serviceCounter() is read for each contract key THEN it is that Python counter, summed, by Service', () => {
    for (const [key, { name }] of Object.entries(MODEL_SERVER_SERVICE_COUNTERS)) {
      const metric = metrics.serviceCounter(key as keyof typeof MODEL_SERVER_SERVICE_COUNTERS);
      expect(metric).toMatchObject({ metricName: name, statistic: 'Sum', unit: 'Count' });
      expect(metric.dimensions).toEqual({ Service: 'my-endpoint' });
    }
  });
});

describe('ModelServerMetrics statistics and options', () => {
  test('GIVEN no options THEN counters are sums, samples p99 or average, over 1 minute', () => {
    expect(metrics.requests().statistic).toBe('Sum');
    expect(metrics.queueWait().statistic).toBe('p99');
    expect(metrics.deviceTime().statistic).toBe('p99');
    expect(metrics.batchSize().statistic).toBe('Average');
    expect(metrics.requests().period.toSeconds()).toBe(60);
  });

  test('GIVEN caller options THEN they win over the defaults', () => {
    const metric = metrics.queueWait({ statistic: 'p50', period: Duration.minutes(5), label: 'wait' });
    expect(metric).toMatchObject({ statistic: 'p50', label: 'wait' });
    expect(metric.period.toSeconds()).toBe(300);
  });

  test('WHEN meanBatchSize() is read THEN it divides the Inputs sum by the Batches sum', () => {
    expect(metrics.meanBatchSize().expression).toBe('inputs / batches');
    const expression = metrics.meanBatchSize({ worker: 0 });
    expect(expression.expression).toBe('inputsW0 / batchesW0');
    expect(expression.usingMetrics.inputsW0).toMatchObject({ metricName: 'Inputs', statistic: 'Sum' });
    expect(expression.usingMetrics.batchesW0).toMatchObject({ metricName: 'Batches', statistic: 'Sum' });
    expect((expression.usingMetrics.batchesW0 as cloudwatch.Metric).dimensions).toEqual({ Service: 'my-endpoint', Worker: '0' });
  });
});

describe('ModelServerMetrics widgets on a dashboard', () => {
  test('GIVEN two workers WHEN the widgets are on a dashboard THEN it graphs every metric and each worker', () => {
    // GIVEN
    const stack = new Stack(new App(), 'Stack');
    // WHEN
    new cloudwatch.Dashboard(stack, 'Dashboard', { widgets: [metrics.widgets()] });
    // THEN
    const body = JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    for (const name of ['Requests', 'Inputs', 'Batches', 'QueueWait', 'DeviceTime', 'QueueFull', 'DeadlineExceeded',
      'WorkerErrors', 'WorkerRestarts', 'NeuronCoreUtilization', 'WorkerHangs', 'RequestsRetried', 'IsolationCalls',
      'ConnectionsRefused', 'ReadTimeouts', 'BodyTooLarge', 'MetricLinesDropped']) {
      expect(body).toContain(`\\"${name}\\"`);
    }
    expect(body).toContain('\\"Worker\\",\\"1\\"');
    expect(body).not.toContain('\\"Worker\\",\\"2\\"');
  });
});

describe('ModelServerMetrics refuses bad names at synth', () => {
  test('GIVEN an empty namespace, an empty service and 0 workers THEN one error names all three', () => {
    expect(() => new ModelServerMetrics({ namespace: '', service: ' ', workers: 0 })).toThrow(InputError);
    expect(() => new ModelServerMetrics({ namespace: '', service: ' ', workers: 0 })).toThrow(
      /3 problems:[\s\S]*namespace=""[\s\S]*service=" "[\s\S]*workers=0/,
    );
  });

  test('GIVEN a negative worker index THEN the metric is refused', () => {
    expect(() => metrics.batches({ worker: -1 })).toThrow(/worker=-1 must be a worker index/);
  });
});

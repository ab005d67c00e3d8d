import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { GenerativeEngineMetrics } from '../../../constructs/monitoring/generative-engine-metrics';
import { Catalog } from '../../../lib/catalog/catalog';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import type { GenerativePlan } from '../../../lib/generative';
import {
  ENGINE_COUNTERS, ENGINE_EXPORTER_COUNTERS, ENGINE_GAUGES, ENGINE_PERCENTILES,
} from '../../../lib/generative/engine-image';

const EXPORTER = readFileSync(path.join(__dirname, '..', '..', '..', 'serving', 'vllm', 'engine_metrics.py'), 'utf8');

/** The tuples of `NAME = ((...), ...)` in the exporter, first three fields, read from the source. */
function pythonTuples(name: string): string[][] {
  const start = EXPORTER.indexOf(`\n${name} = (`);
  if (start < 0) throw new Error(`serving/vllm/engine_metrics.py no longer defines ${name}`);
  const block = EXPORTER.slice(start, EXPORTER.indexOf('))\n', start) + 2);
  return [...block.matchAll(/\("([^"]+)", "([^"]+)"(?:, "([^"]+)")?/g)].map((m) => m.slice(1).filter((x) => x !== undefined));
}

function llamaPlan(): GenerativePlan {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) throw new Error('no llama profile');
  return planGenerativeReport(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
  }, { region: 'us-east-1', hosting: 'sagemaker' }, Catalog.builtIn()).chosen;
}

describe('GenerativeEngineMetrics names exactly what serving/vllm/engine_metrics.py writes', () => {
  test.each([
    ['GAUGES', ENGINE_GAUGES],
    ['COUNTERS', ENGINE_COUNTERS],
    ['PERCENTILES', ENGINE_PERCENTILES],
  ])('GIVEN the exporter\'s %s THEN the contract lists the same names, units and vLLM series', (pythonName, contract) => {
    const python = pythonTuples(pythonName);
    expect(python.length).toBeGreaterThan(0);
    expect(Object.values(contract).map((m) => [m.name, m.unit, m.source]).sort()).toEqual([...python].sort());
  });

  test('GIVEN the exporter\'s own counters and dimensions THEN the contract matches', () => {
    expect(Object.values(ENGINE_EXPORTER_COUNTERS).map((m) => [m.name, m.unit])).toEqual(pythonTuples('EXPORTER_COUNTERS'));
    expect(EXPORTER).toContain('"Dimensions": [["Service"], ["Service", "Replica"]]');
  });
});

describe('GenerativeEngineMetrics graphs the engine beside the plan', () => {
  const plan = llamaPlan();
  const engine = new GenerativeEngineMetrics({ service: 'llama', plan });

  test('GIVEN a replica THEN metrics carry its dimension, p99s read the worst interval and tokens/s is a rate', () => {
    expect(engine.ttftP99({ replica: '1' })).toMatchObject({
      namespace: 'CdkInferentia/GenerativeEngine', metricName: 'TimeToFirstTokenP99', statistic: 'Maximum',
      dimensions: { Service: 'llama', Replica: '1' },
    });
    expect(engine.kvCacheUsage().unit).toBe(cloudwatch.Unit.PERCENT);
    expect(engine.outputTokensPerSecond().expression).toBe('generated / PERIOD(generated)');
    expect(engine.neuronCoreUtilization().namespace).toBe('CdkInferentia/GenerativeEngine');
    expect(() => engine.runningRequests({ replica: ' ' })).toThrow(/replica must not be empty/);
    // The plugin's start and the cores the launcher saw: constant after start, the slowest or worst replica.
    expect(engine.engineStart('compileTime', { replica: '0' })).toMatchObject({
      metricName: 'CompileTime', statistic: 'Maximum', dimensions: { Service: 'llama', Replica: '0' },
    });
    expect(engine.engineStart('neuronCoresSeen').metricName).toBe('NeuronCoresSeen');
    expect(() => new GenerativeEngineMetrics({ service: '' })).toThrow(/service="" must be 1 to 1024 characters/);
  });

  test('GIVEN the plan WHEN on a dashboard THEN the TTFT, TPOT, tokens and running graphs draw its predictions', () => {
    // The widgets' JSON as the dashboard body holds it (resolved without a synth, which costs ~20 s for a dashboard).
    const stack = new Stack(new App(), 'Stack');
    const body = JSON.stringify(stack.resolve(engine.widgets().flatMap((widget) => widget.toJson())));
    const g = plan.generative;
    for (const [label, value] of [
      ['Plan: predicted p99', Math.round(g.predictedTtftP99Ms * 100) / 100],
      ['Plan: predicted p99', Math.round(g.predictedTpotP99Ms * 100) / 100],
      ['Target p99', 2000],
      ['Target p99', 60],
      ['Plan: at the target rate', Math.round(g.outputTokensPerSecond * 100) / 100],
      ['Slots (max_num_seqs)', g.engine.maxNumSeqs],
    ] as const) {
      expect(body).toContain(`"label":"${label}","value":${value}`);
    }
    expect(body).toContain('TimePerOutputTokenP99');
    expect(body).toContain('NeuronCoreUtilization');
    // Without a plan the graphs stand alone.
    expect(new GenerativeEngineMetrics({ service: 's' }).widgets()).toHaveLength(7);
  });
});

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { StandinMetrics } from '../../../bench/vllm-standin/metrics';
import { COPY_CORES_METRICS, judgeCopyCores, judgePluginStartup, parseCopyCores, parsePluginStartup } from '../../../lib/generative/plugin-metrics';

describe('the vLLM Neuron plugin startup figures in /metrics', () => {
  test('GIVEN a plugin exposition WHEN parsed THEN each vllm_neuron: series is read, ranks summed, histogram _sum taken', () => {
    const text = [
      '# HELP vllm_neuron:compilation_time_seconds x',
      'vllm_neuron:compilation_time_seconds{engine="0",model_name="m"} 3.5',
      'vllm_neuron:model_load_time_seconds{engine="0",rank="0"} 20',
      'vllm_neuron:model_load_time_seconds{engine="0",rank="1"} 1',
      'vllm_neuron:startup_time_seconds_bucket{le="60.0"} 1',
      'vllm_neuron:startup_time_seconds_sum{engine="0"} 30',
      'vllm_neuron:startup_time_seconds_count{engine="0"} 1',
      'vllm:num_requests_running{engine="0"} 2',
    ].join('\n');
    expect(parsePluginStartup(text)).toEqual({ compilationSeconds: 3.5, modelLoadSeconds: 21, startupSeconds: 30 });
  });

  test('GIVEN an NxD Inference engine (no vllm_neuron: series) THEN there is nothing to judge', () => {
    expect(parsePluginStartup('vllm:num_requests_running{engine="0"} 2\n')).toBeUndefined();
  });

  test('GIVEN a compile over the limit THEN it fails naming the series and the fix; a cache hit passes', () => {
    expect(judgePluginStartup({ compilationSeconds: 4 })).toEqual([]);
    expect(judgePluginStartup({ compilationSeconds: 600 })[0]).toMatch(/compiled for 600 s at serving time .* run the CPU compile job/);
  });
});

describe('the NeuronCores each copy saw, in /metrics', () => {
  const state = { running: 0, waiting: 0, maxNumSeqs: 8, lostMs: 0 };

  test('GIVEN the stand-in playing a copy given 4 of the 16 cores its TP needs THEN the copy is read and judged, naming both counts', () => {
    const text = new StandinMetrics('m', undefined, { copy: 'ip-10-0-1-5', seen: 4, needed: 16 }).render(state);
    const copies = parseCopyCores(text);
    expect(copies).toEqual([{ copy: 'ip-10-0-1-5', coresSeen: 4, coresNeeded: 16, source: 'standin' }]);
    expect(judgeCopyCores(copies)).toEqual([expect.stringMatching(/copy ip-10-0-1-5 saw 4 NeuronCores \(standin\) but its tensor-parallel degree needs 16: raise NumberOfAcceleratorDevicesRequired/)]);
  });

  test('GIVEN no launcher series (the stand-in without them) THEN no copy, nothing to judge', () => {
    expect(parseCopyCores(new StandinMetrics('m').render(state))).toEqual([]);
  });

  test('GIVEN the launcher\'s middleware THEN it writes the series under the names the proof reads, labelled copy and source', () => {
    const middleware = readFileSync(path.join(__dirname, '..', '..', '..', 'serving', 'vllm', 'cores_seen.py'), 'utf8');
    expect(middleware).toContain(`SEEN_METRIC = "${COPY_CORES_METRICS.seen}"`);
    expect(middleware).toContain(`NEEDED_METRIC = "${COPY_CORES_METRICS.needed}"`);
    // The middleware's exposition line, as its test prints it, parses.
    const line = 'cdk_inferentia:neuron_cores_seen{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8\n'
      + 'cdk_inferentia:neuron_cores_needed{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8\n';
    expect(parseCopyCores(line)).toEqual([{ copy: 'ip-10-0-1-5', coresSeen: 8, coresNeeded: 8, source: 'NEURON_RT_VISIBLE_CORES' }]);
  });
});

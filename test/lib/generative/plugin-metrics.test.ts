import { judgePluginStartup, parsePluginStartup } from '../../../lib/generative/plugin-metrics';

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

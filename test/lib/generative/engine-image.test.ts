import { InputError } from '../../../lib/errors';
import {
  compareVersions, parseVllmDlcTag, pinFor, VLLM_DLC_PINS, vllmContainerEnvironment, vllmDlcTagProblems,
} from '../../../lib/generative/engine-image';
import type { VllmReplicaConfig } from '../../../lib/generative/engine-config';
import { NXDI_LAST_SDK_FOR_INF2_TRN1 } from '../../../lib/generative/planner';

const REPLICA: VllmReplicaConfig = {
  index: 0, port: 8081, devices: ['/dev/neuron0'], visibleCores: '0-1',
  args: ['/opt/ml/model', '--served-model-name=m'], environment: { NEURON_RT_VISIBLE_CORES: '0-1' },
};

describe('the pinned Neuron vLLM images and the tags each chip can run', () => {
  test('GIVEN the pins THEN Inf2/Trn1 get the last NxD Inference SDK they run and Trn2/Trn3 the vLLM Neuron plugin 1.2.0', () => {
    expect(parseVllmDlcTag(VLLM_DLC_PINS.inf2Trn1.tag)).toEqual({ vllmVersion: '0.13.0', neuronSdkVersion: '2.28.0', betaPlugin: false });
    expect(compareVersions(VLLM_DLC_PINS.inf2Trn1.neuronSdkVersion, NXDI_LAST_SDK_FOR_INF2_TRN1)).toBe(0);
    expect(parseVllmDlcTag(VLLM_DLC_PINS.trn2.tag)).toEqual({ vllmVersion: '0.29.0.1.2.0', neuronSdkVersion: '2.33.0', betaPlugin: true });
    expect(pinFor('inf2')).toBe(VLLM_DLC_PINS.inf2Trn1);
    expect(pinFor('trn2')).toBe(VLLM_DLC_PINS.trn2);
    expect(pinFor('inf1')).toBeUndefined();
    for (const pin of Object.values(VLLM_DLC_PINS)) {
      for (const family of pin.families) expect(vllmDlcTagProblems('t', pin.tag, family)).toEqual([]);
    }
  });

  test('GIVEN tags the plan cannot run THEN each problem names the tag, the reason and a tag that works', () => {
    expect(vllmDlcTagProblems('t', '0.16.0-neuronx-py312-sdk2.29.0-ubuntu24.04', 'trn1')[0]).toMatch(
      /SDK 2\.29\.0, but NxD Inference runs on trn1 only up to SDK 2\.28 .* use 0\.13\.0-neuronx-py312-sdk2\.28\.0-ubuntu24\.04/);
    expect(vllmDlcTagProblems('t', '0.13.0-neuronx-py312-sdk2.27.1-ubuntu24.04', 'inf2')).toEqual([]);
    expect(vllmDlcTagProblems('t', '0.21.0.1.0.0-neuronx-py313-sdk2.31.1-ubuntu24.04', 'trn2')[0]).toMatch(/plugin 1\.0\.0, older than 1\.1\.0/);
    expect(vllmDlcTagProblems('t', '0.24.0.1.1.0-neuronx-py313-sdk2.32.0-ubuntu24.04', 'trn3')).toEqual([]);
    expect(vllmDlcTagProblems('t', '0.16.0-neuronx-py312-sdk2.29.1-ubuntu24.04', 'trn2')[0]).toMatch(
      /is an NxD Inference vLLM image, whose engine settings differ from the vLLM Neuron plugin's that trn2 plans render \(https:.*reference-configuration\.html\); use the plugin image such as 0\.29\.0\.1\.2\.0/);
    expect(vllmDlcTagProblems('t', VLLM_DLC_PINS.trn2.tag, 'trn1')[0]).toMatch(
      /carries the vLLM Neuron plugin, documented for Trn2 and Trn3 only .*trn1 runs vLLM over NxD Inference \(https:.*vllm-user-guide-v1\.html\): use 0\.13\.0/);
    expect(vllmDlcTagProblems('t', '0.11.0-neuronx-py312-sdk2.27.1-ubuntu24.04', 'inf2')[0]).toMatch(/vLLM 0\.11\.0, older/);
    expect(vllmDlcTagProblems('t', '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04x', 'trn2')[0]).toMatch(/is not a Neuron vLLM DLC tag/);
    expect(compareVersions('2.29.1', '2.28')).toBeGreaterThan(0);
    expect(compareVersions('2.9', '2.28')).toBeLessThan(0);
  });
});

describe('a replica\'s container environment', () => {
  test('GIVEN a replica THEN its arguments travel as JSON beside its engine variables and metrics target', () => {
    const environment = vllmContainerEnvironment(REPLICA, { namespace: 'N', service: 's', replica: 'r', intervalSeconds: 30 });
    expect(JSON.parse(environment.CDK_INFERENTIA_VLLM_ARGS)).toEqual(REPLICA.args);
    expect(environment).toMatchObject({
      NEURON_RT_VISIBLE_CORES: '0-1', CDK_INFERENTIA_VLLM_PORT: '8081', ENGINE_METRICS_REPLICA: 'r', ENGINE_METRICS_INTERVAL_S: '30',
    });
  });

  test('GIVEN a bad metrics target THEN every problem is named', () => {
    expect(() => vllmContainerEnvironment(REPLICA, { namespace: '', service: 's', intervalSeconds: 0.5 })).toThrow(InputError);
    expect(() => vllmContainerEnvironment(REPLICA, { namespace: '', service: 's', intervalSeconds: 0.5 }))
      .toThrow(/intervalSeconds=0.5 must be a whole number[\s\S]*namespace="" must be 1 to 255/);
  });
});

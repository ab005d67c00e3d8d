import { NEURON_INFERENCE_AMIS, NEURON_SDK_DRIVERS, sdkMinor } from '../../../../constructs/sagemaker/private/neuron-host';

describe('The host compatibility table', () => {
  test('gives newer Neuron SDK releases drivers at least as new, as each release ships its own', () => {
    // GIVEN the releases in version order
    const releases = Object.keys(NEURON_SDK_DRIVERS).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
    // THEN
    const drivers = releases.map((r) => NEURON_SDK_DRIVERS[r][0] * 1000 + NEURON_SDK_DRIVERS[r][1]);
    expect(drivers).toEqual([...drivers].sort((a, b) => a - b));
  });

  test('knows the one SageMaker Neuron inference AMI and its driver 2.19', () => {
    // THEN
    expect(NEURON_INFERENCE_AMIS).toEqual([{ version: 'al2-ami-sagemaker-inference-neuron-2', driver: [2, 19] }]);
  });

  test('reads the release from a Neuron SDK version, and nothing from other strings', () => {
    // THEN
    expect(['2.31.1', '2.18', '2', 'sdk2.31.1', '2.31.1-rc'].map(sdkMinor)).toEqual(['2.31', '2.18', undefined, undefined, undefined]);
  });
});

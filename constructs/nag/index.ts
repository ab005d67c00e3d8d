export * from './apply-policy-checks';
export * from './neuron-checks';
export * from './rules';

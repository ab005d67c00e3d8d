export * from './neuron-ecr-immutable-tags';
export * from './neuron-ecr-kms-encryption';
export * from './neuron-ecr-scan-on-push';
export * from './neuron-endpoint-config-kms';
export * from './neuron-endpoint-config-trn-no-kms-or-volume';
export * from './neuron-endpoint-instance-is-neuron';
export * from './neuron-endpoint-network-isolation-has-model-data';
export * from './neuron-model-image-by-digest';

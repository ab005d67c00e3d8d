/** Container images a hosting runs: the Neuron DLC or our model server by digest, and the ECR repository for your own. */
export * from './model-image-repository';
export * from './model-image';

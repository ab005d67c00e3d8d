/** SageMaker hosting: the endpoint sized by the plan, its execution role, its deployment settings and the example stack. */
export * from './sagemaker-execution-role';
export * from './endpoint-deployment';
export * from './endpoint-props';
export * from './neuron-sagemaker-endpoint';
export * from './generative-endpoint-props';
export * from './neuron-generative-endpoint';
export * from './inference-stack';
export * from './generative-inference-stack';

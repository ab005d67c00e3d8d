/** The Neuron compile job: compiles a model for the plan's chip, core group and batch at deploy, cached by content hash. */
export * from './neuron-compile-job';
/** Generative models: their weights (S3 prefix or Hugging Face Hub) and the vLLM-on-Neuron compile for a plan. */
export * from './neuron-generative-compile-job';

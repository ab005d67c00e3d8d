/** The Neuron compile job: compiles a model for the plan's chip, core group and batch at deploy, cached by content hash. */
export * from './neuron-compile-job';

/** Monitoring: the model server's and the generative engine's metrics and dashboards. */
export * from './model-server-metrics';
export * from './generative-engine-metrics';

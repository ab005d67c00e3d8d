/** Monitoring: the model server's metrics and dashboards. */
export * from './model-server-metrics';

/** Real local servers on 127.0.0.1 for data-plane tests. */
export * from './http-server';
export * from './sagemaker-runtime-server';

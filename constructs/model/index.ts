/** Model data: the files a hosting serves, from a directory, an S3 prefix or a compile job. */
export * from './model-data';

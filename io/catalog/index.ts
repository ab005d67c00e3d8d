/** The catalog's refresh from AWS: the Price List API and EC2 `DescribeInstanceTypes`, written as a price file. */
export { refreshCatalog, type RefreshOptions } from './refresh';

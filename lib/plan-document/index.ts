/**
 * Plans read back: the readers that check a plan document's shape and version before anything uses it.
 */
export * from './read';

/**
 * The edge: what calls AWS or the network, on top of the pure `lib/`. Imported as `cdk-inferentia/io` by scripts that
 * refresh prices, run a preflight or drive a benchmark; the package root and `cdk-inferentia/planner` never load it,
 * so a synth or a plan loads no AWS SDK client.
 */
export * from './catalog';
export * from './preflight';
export * from './bench';
export * from './traffic';

/**
 * The accelerator chip of an instance family: what a compiled Neuron model is bound to and what a measurement
 * predicts. Its own module so the planners and the pool selection (`pools.ts`) share it without importing each other.
 */

/**
 * The accelerator chip of an instance family: Inf1 has Inferentia, Inf2 Inferentia2, Trn1 and Trn1n Trainium.
 * Families with the same chip run a compiled model at the same speed per NeuronCore.
 */
export function chipOf(family: string): string {
  return { trn1n: 'trn1', trn2u: 'trn2' }[family] ?? family;
}

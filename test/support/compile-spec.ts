import type { CompileSpecInput } from '../../lib/compile';

/**
 * A compile spec for bert-base-uncased from the Hugging Face Hub, batch 1, sequence length 128, on one Inf2
 * NeuronCore: each test overrides what it is about.
 */
export function bertCompileSpec(overrides: Partial<CompileSpecInput> = {}): CompileSpecInput {
  return {
    model: 'bert-base-uncased',
    source: { hubModelId: 'bert-base-uncased' },
    task: 'feature-extraction',
    sequenceLength: 128,
    batchSizes: [1],
    chip: 'inf2',
    coresPerProcess: 1,
    neuronSdkVersion: '2.26.1',
    ...overrides,
  };
}

/**
 * The contract between a compile job and the model data it produces: where the artifact is and what it was compiled
 * for. The job (`constructs/compile/`) provides it; model data (`constructs/model/`) and the hostings read it. Both
 * sides import this file and neither imports the other, so the two constructs form no circle.
 */
import type { CompiledArtifactFacts } from './check';

/** A compiled artifact as a hosting sees it, all known at synth. */
export interface CompiledArtifact {
  /** Content hash of the spec and compile script: the artifact's key and the model's fingerprint. */
  readonly hash: string;
  /** `<prefix><hash>/`: the key prefix of the artifact's files in its bucket. */
  readonly artifactPrefix: string;
  /** What it was compiled for, checked against a hosting's plan. */
  readonly artifact: CompiledArtifactFacts;
}

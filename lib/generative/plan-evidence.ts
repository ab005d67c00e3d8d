/**
 * What a generative plan's times rest on, as the plan states it: `generative.evidence` (measured rows, or the
 * performance model's estimate with the rows nearest to it and the headroom of its extrapolation class),
 * `generative.estimate` (the model's figures, kept for readers of older plans) and the ESTIMATE warning.
 */
import { ec2Name } from '../catalog/catalog';
import type { InstanceSpec } from '../catalog/types';
import { RECORDED_ERROR_REPORT } from './model/error-report';
import { heldOutErrorOf, nearestRows } from './model/evidence';
import { knownRows } from './model/dataset';
import type { FitRow } from './model/rows';
import { architectureKey, chipOfInstance, deployedStack } from './model/rows';
import type { EstimatedConfiguration } from './estimate';
import { describeLevers } from './perf-model';
import { vllmEngineOf } from './engine-config';
import { stackName } from './lever-evidence';
import type { GenerativeEstimate, GenerativeEvidence, GenerativeEvidenceRow, GenerativeMeasurement, GenerativeProfile, GenerativeTargets } from './types';

/** Rows an estimated plan lists as nearest. */
export const NEAREST_ROWS = 3;

const round = (n: number) => Math.round(n * 100) / 100;
const pct = (x: number) => `${Math.round(x * 100)} %`;

function evidenceRow(row: FitRow, distance: string): GenerativeEvidenceRow {
  return {
    model: row.model, source: row.source, instanceType: row.instanceType, stack: row.stack, neuronSdkVersion: row.neuronSdkVersion,
    tensorParallelDegree: row.tensorParallelDegree, batchSize: row.batchSize, inputTokens: row.inputTokens, outputTokens: row.outputTokens, distance,
  };
}

/** The evidence of a plan timed by the performance model, for requests of the targets' mean lengths. */
export function estimatedEvidence(
  profile: GenerativeProfile,
  instance: InstanceSpec,
  config: EstimatedConfiguration,
  targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>,
): GenerativeEvidence {
  const target = {
    model: profile.id, architecture: architectureKey(profile.model), chip: chipOfInstance(instance.name), stack: deployedStack(instance.family), tensorParallelDegree: config.tp,
    batchSize: config.seqs, inputTokens: Math.round(targets.inputTokens.mean), outputTokens: Math.round(targets.outputTokens.mean),
  };
  const h = config.timing.headroom;
  return {
    basis: 'estimated',
    nearest: nearestRows(target, knownRows(profile), NEAREST_ROWS).map((n) => evidenceRow(n.row, n.distance)),
    headroom: {
      tpot: round(h.tpot), ttft: round(h.ttft), class: h.class, heldOutRows: h.heldOutRows, quantile: h.quantile,
      ...(h.narrowestClass !== undefined ? { narrowestClass: h.narrowestClass, narrowestHeldOutRows: h.narrowestHeldOutRows ?? 0 } : {}),
    },
  };
}

/** The evidence of a plan timed by its measured rows: those rows, no headroom. */
export function measuredEvidence(profile: GenerativeProfile, rows: readonly GenerativeMeasurement[]): GenerativeEvidence {
  const known = knownRows(profile);
  const asFit = (m: GenerativeMeasurement): FitRow => known.find((r) => m.source.startsWith(r.source) && r.instanceType === m.instanceType
    && r.tensorParallelDegree === m.tensorParallelDegree && r.batchSize === m.batchSize) ?? {
    model: profile.id, architecture: architectureKey(profile.model), facts: profile.model, instanceType: m.instanceType, chip: chipOfInstance(m.instanceType),
    stack: deployedStack(ec2Name(m.instanceType).split('.')[0]), neuronSdkVersion: m.neuronSdkVersion, tensorParallelDegree: m.tensorParallelDegree,
    batchSize: m.batchSize, inputTokens: m.inputTokens, outputTokens: m.outputTokens, source: m.source,
  };
  return {
    basis: 'measured',
    nearest: rows.map((m) => evidenceRow(asFit(m), 'measured')),
    headroom: { tpot: 1, ttft: 1, class: 'measured', heldOutRows: 0, quantile: 0 },
  };
}

/**
 * The warning of a plan timed by rows another serving stack measured: Inf2 and Trn1 deploy vLLM over NxD Inference
 * (`vllm-nxdi`), Trn2 and Trn3 the vLLM Neuron plugin, and a row of optimum-neuron's vLLM integration timed another
 * engine. The rows stay the plan's times (nothing measured is nearer), and the warning states how far the performance
 * model has been off between stacks on the chip, so the first token proof is read with that in mind. A profile's own
 * rows (calibrated from a proof of the deployed engine) count as the deployed stack's.
 */
export function otherStackWarning(evidence: GenerativeEvidence, instance: InstanceSpec): string | undefined {
  const deployed = deployedStack(instance.family);
  const others = evidence.basis === 'measured' ? evidence.nearest.filter((r) => r.stack !== deployed) : [];
  if (others.length === 0) {
    return undefined;
  }
  const chip = chipOfInstance(instance.name);
  const error = heldOutErrorOf({ chipFamily: chip, model: 'same', chip: 'same', stack: 'other', tpBeyond: false, tpBelow: false }, RECORDED_ERROR_REPORT);
  const rows = others.map((r) => `${r.instanceType} TP ${r.tensorParallelDegree} batch ${r.batchSize} (${r.stack})`);
  return `measured with another serving stack than this plan deploys (${stackName(vllmEngineOf(instance.family))}, ${deployed}): `
    + `${[...new Set(rows)].join('; ')}; its times are used as measured, without headroom`
    + (error !== undefined
      ? `, while the performance model's held-out error across stacks on ${chip} is median ${pct(error.tpot.median)} for TPOT and `
        + `${pct(error.ttft.median)} for TTFT ("${error.class}", ${error.tpot.count + error.ttft.count} predictions)`
      : '')
    + ': read the first token proof against the plan\'s sensitivity, and calibrate the profile from its report (cdk-inferentia calibrate)';
}

/** The evidence in one line, for the plan's table. */
export function describeEvidence(e: GenerativeEvidence): string {
  const h = e.headroom;
  if (e.basis === 'measured') {
    const rows = e.nearest.map((r) => `${r.instanceType} TP ${r.tensorParallelDegree} batch ${r.batchSize} (${r.stack}, SDK ${r.neuronSdkVersion})`);
    return `measured: ${rows.join('; ')}; no headroom`;
  }
  const near = e.nearest.map((r) => `${r.model} on ${r.instanceType} TP ${r.tensorParallelDegree} batch ${r.batchSize}, SDK ${r.neuronSdkVersion} (${r.distance})`);
  const fallback = h.narrowestClass !== undefined ? `; its own class "${h.narrowestClass}" has ${h.narrowestHeldOutRows} held-out rows` : '';
  return `ESTIMATE from ${near.join(' | ')}; headroom TPOT x${h.tpot}, TTFT x${h.ttft}: measured / predicted at the ` +
    `${Math.round(h.quantile * 100)}th percentile of ${h.heldOutRows} held-out predictions of "${h.class}"${fallback}`;
}

/** The estimate's figures, for the plan's JSON (`generative.estimate`, kept for readers of older plans). */
export function estimateDetails(config: EstimatedConfiguration): GenerativeEstimate {
  const error = RECORDED_ERROR_REPORT.leaveOneModelOut;
  const t = config.timing;
  return {
    tpotError: { median: round(error.tpot.median), worst: round(error.tpot.worst) },
    ttftError: { median: round(error.ttft.median), worst: round(error.ttft.worst) },
    headroom: { tpot: round(t.headroom.tpot), ttft: round(t.headroom.ttft) },
    stepMs: round(t.rawStepMs),
    prefillMs: round(t.rawPrefillMs),
    anchors: { tpot: round(t.anchors.tpot), ttft: round(t.anchors.ttft) },
  };
}

/** The warning an estimated plan carries. */
export function estimateWarning(config: EstimatedConfiguration): string {
  const error = RECORDED_ERROR_REPORT.leaveOneModelOut;
  const t = config.timing;
  const h = t.headroom;
  return `ESTIMATE: no published row measures tp=${config.tp} seqs=${config.seqs} (levers: ${describeLevers(config.levers)}) at this length; ` +
    `the performance model predicts a decode step of ${round(t.rawStepMs)} ms and a mean prefill of ${round(t.rawPrefillMs)} ms. ` +
    `Holding out a whole model at a time, its error on the published rows is median ${pct(error.tpot.median)}, worst ${pct(error.tpot.worst)} for TPOT and median ` +
    `${pct(error.ttft.median)}, worst ${pct(error.ttft.worst)} for TTFT. This plan is a "${h.class}" extrapolation: it raises the decode step x${round(h.tpot)} ` +
    `and the prefill x${round(h.ttft)}, the ${Math.round(h.quantile * 100)}th percentile of measured / predicted over ${h.heldOutRows} held-out predictions of that class. ` +
    'Prove it with the token proof and calibrate from its report.';
}

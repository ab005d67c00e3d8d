/**
 * The LLM performance model's measured error: every published row of every built-in generative profile predicted
 * from a fit and anchors made without it (leave-one-out), for TTFT and TPOT. Prints each row, then the median and
 * worst error of each, and the headroom the planner adds to estimated plans. Run with `npm run bench:llm-model`.
 */
import { builtInGenerativeProfiles } from '../lib/generative';
import { ESTIMATE_ERROR_QUANTILE, estimateHeadroom, performanceModel } from '../lib/generative/estimate';
import { errorSummary, fitCoefficients, fitPoints, leaveOneOut } from '../lib/generative/perf-model';

function main(): void {
  const profiles = builtInGenerativeProfiles();
  const points = fitPoints(profiles);
  const c = fitCoefficients(points);
  const fmt = (v: readonly number[]) => v.map((x) => x.toPrecision(3)).join(', ');
  console.log(`fit on ${points.length} published points: decode [memory, compute, collective, fixed] = [${fmt(c.decode)}], prefill = [${fmt(c.prefill)}]`);
  const loo = leaveOneOut(points);
  for (const r of loo) {
    const row = r.point.row;
    console.log(
      `${r.point.kind.toUpperCase().padEnd(4)} ${r.point.profileId.padEnd(24)} ${row.instanceType.padEnd(14)} tp=${String(row.tensorParallelDegree).padEnd(3)} ` +
        `batch=${String(row.batchSize).padEnd(3)} in=${String(row.inputTokens).padEnd(6)} measured ${(r.point.seconds * 1000).toFixed(1).padStart(7)} ms, ` +
        `predicted ${(r.predictedSeconds * 1000).toFixed(1).padStart(7)} ms, error ${(r.error * 100).toFixed(0).padStart(3)} %`,
    );
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  for (const kind of ['ttft', 'tpot'] as const) {
    const s = errorSummary(loo.filter((r) => r.point.kind === kind).map((r) => r.error));
    console.log(`${kind.toUpperCase()} leave-one-out error over ${s.count} published rows: median ${pct(s.median)}, worst ${pct(s.worst)} (p75 ${pct(s.p75)}, p90 ${pct(s.p90)})`);
  }
  const h = estimateHeadroom(performanceModel(profiles));
  console.log(`headroom on estimated plans (${Math.round(ESTIMATE_ERROR_QUANTILE * 100)}th-percentile error): TPOT x${h.tpot.toFixed(2)}, TTFT x${h.ttft.toFixed(2)}`);
}

main();

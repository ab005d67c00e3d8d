/**
 * The LLM performance model's held-out error (`npm run bench:llm-model`): refits the model to every row
 * (`lib/generative/model/dataset.ts`), predicts each model's rows from a fit and anchors made without any of them
 * (leave-one-model-out), and prints each prediction, the coefficients by chip and stack, the held-out error of each
 * extrapolation class (what sizes an estimated plan's headroom), then the summary lines: the fit's reach, TPOT and
 * TTFT median and worst, and the same by chip family and by serving stack. It ends by comparing the figures with
 * the recorded ones (`lib/generative/model/error-report.ts`; `npm run fit:llm-model` rewrites them).
 */
import { performance } from 'perf_hooks';
import { PUBLISHED_ROWS, publishedSummary } from '../lib/generative/published';
import { fitRows } from '../lib/generative/model/dataset';
import { COEFFICIENT_NAMES, fitCoefficients, observations } from '../lib/generative/model/fit';
import { RECORDED_ERROR_REPORT } from '../lib/generative/model/error-report';
import { leaveOneModelOut } from '../lib/generative/model/holdout';
import type { ErrorSummary } from '../lib/generative/model/holdout';
import { errorReport } from '../lib/generative/model/report';
import type { KindErrors } from '../lib/generative/model/report';
import { medianRegressions } from '../lib/generative/model/regression';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ms = (s: number) => (s * 1000).toFixed(1).padStart(8);

function line(kind: 'TPOT' | 'TTFT', s: ErrorSummary, prefix = ''): string {
  return `${prefix}${kind} leave-one-model-out error over ${s.count} rows: median ${pct(s.median)}, worst ${pct(s.worst)}`;
}

function both(errors: KindErrors, prefix = ''): string[] {
  return [line('TPOT', errors.tpot, prefix), line('TTFT', errors.ttft, prefix)];
}

function main(): void {
  const rows = fitRows();
  const obs = observations(rows);
  const started = performance.now();
  const lomo = leaveOneModelOut(obs);
  const lomoMs = performance.now() - started;
  for (const p of lomo) {
    const r = p.observation.row;
    console.log(
      `${p.observation.kind.toUpperCase().padEnd(4)} ${r.model.padEnd(28)} ${r.instanceType.padEnd(14)} ${r.stack.padEnd(20)} tp=${String(r.tensorParallelDegree).padEnd(3)} ` +
        `batch=${String(r.batchSize).padEnd(3)} in=${String(r.inputTokens).padEnd(6)} measured ${ms(p.observation.seconds)} ms, predicted ${ms(p.predictedSeconds)} ms, ` +
        `error ${(p.error * 100).toFixed(0).padStart(3)} %`,
    );
  }
  const fitted = fitCoefficients(obs);
  console.log(`\ncoefficients (${COEFFICIENT_NAMES.join(', ')}):`);
  const fmt = (v: readonly number[]) => v.map((x) => x.toPrecision(3)).join(', ');
  console.log(`  shared: ${fmt(fitted.shared)}`);
  for (const [k, v] of Object.entries(fitted.byChip)) {
    console.log(`  ${k}: ${fmt(v)}`);
  }
  for (const [k, v] of Object.entries(fitted.byGroup)) {
    console.log(`  ${k}: ${fmt(v)}`);
  }
  const reportStarted = performance.now();
  const report = errorReport(obs);
  const reportMs = performance.now() - reportStarted;
  console.log(`\nheld-out error by extrapolation class (every hidden set; headroom = measured / predicted at the ${Math.round(report.quantile * 100)}th percentile):`);
  for (const [k, c] of Object.entries(report.classes)) {
    const cell = (e: typeof c.tpot) => `${String(e.count).padStart(4)} rows, median ${pct(e.median).padStart(7)}, x${e.ratioAtQuantile.toFixed(2)}`;
    console.log(`  ${k.padEnd(58)} TPOT ${cell(c.tpot)}; TTFT ${cell(c.ttft)}`);
  }
  const bySource = new Map<string, number>();
  for (const r of rows) {
    const source = r.source.replace(/^UNVERIFIED \(not AWS-authored\): /, '').split(' @ ')[0].split(' (')[0];
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
  }
  console.log(`\n${publishedSummary()}`);
  console.log(`fitted: ${rows.length} of ${PUBLISHED_ROWS.length} (the rest: encoder-decoder, speculation, host sampling, open loops or saturation, ` +
    `no time the model can read); by source: ${[...bySource].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.log(`\nleave-one-model-out took ${lomoMs.toFixed(0)} ms (${report.architectures} fits); every hidden set ${reportMs.toFixed(0)} ms`);
  const regressions = medianRegressions(RECORDED_ERROR_REPORT, report.leaveOneModelOut);
  console.log(regressions.length === 0
    ? `recorded medians (TPOT ${pct(RECORDED_ERROR_REPORT.leaveOneModelOut.tpot.median)}, TTFT ${pct(RECORDED_ERROR_REPORT.leaveOneModelOut.ttft.median)}) hold`
    : regressions.join('\n'));
  console.log('');
  console.log(`(a model is held out with every model of its architecture: ${report.models} models are ${report.architectures} architectures)`);
  console.log(`fit on ${report.rows} published rows of ${report.models} models (${report.chips} chips, ${report.stacks} serving stacks)`);
  const l = report.leaveOneModelOut;
  for (const s of both(l)) {
    console.log(s);
  }
  for (const [chip, e] of Object.entries(l.byChip)) {
    for (const s of both(e, `${chip}: `)) {
      console.log(s);
    }
  }
  for (const [stack, e] of Object.entries(l.byStack)) {
    for (const s of both(e, `${stack}: `)) {
      console.log(s);
    }
  }
}

main();

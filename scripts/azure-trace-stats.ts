/**
 * Prints the statistics `lib/generative/workloads.ts` holds for a workload preset, read from a trace file through the
 * same reader as `plan --lengths-from`:
 *
 *   git clone https://github.com/Azure/AzurePublicDataset && \
 *   npx tsx scripts/azure-trace-stats.ts AzurePublicDataset/data/AzureLLMInferenceTrace_conv.csv
 *
 * Each count: mean, p5, p50, p95, p99 and the coefficient of variation; the arrivals' SCV (gaps against the mean
 * gap of the minute around each).
 */
import { readTrafficFile } from '../io/traffic';
import { QUANTILE_PROBABILITIES } from '../lib/traffic/types';
import type { CountSummary } from '../lib/traffic/types';

function at(count: CountSummary, p: number): number {
  return count.quantiles[QUANTILE_PROBABILITIES.indexOf(p)];
}

function describe(count: CountSummary): string {
  return JSON.stringify({
    mean: count.mean, p5: at(count, 0.05), p50: count.p50, p95: at(count, 0.95), p99: count.p99,
    cv: Math.round(Math.sqrt(count.scv) * 100) / 100,
  });
}

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx scripts/azure-trace-stats.ts TRACE.csv...\n');
    process.exitCode = 2;
    return;
  }
  for (const file of files) {
    const summary = await readTrafficFile(file);
    process.stdout.write(`${summary.source}\n`);
    if (summary.input !== undefined && summary.output !== undefined) {
      process.stdout.write(`  input:  ${describe(summary.input)}\n  output: ${describe(summary.output)}\n`);
      process.stdout.write(`  p99 / mean: input ${(summary.input.p99 / summary.input.mean).toFixed(3)}, output ${(summary.output.p99 / summary.output.mean).toFixed(3)}\n`);
    }
    if (summary.arrivals !== undefined) {
      process.stdout.write(`  arrivals: SCV ${summary.arrivals.scv} (${summary.arrivals.scvRange.join(' to ')}), ${summary.arrivals.meanRps} requests/s\n`);
    }
  }
}

void main();

/**
 * The accuracy guard: a change may not make the leave-one-model-out TPOT or TTFT median worse by more than
 * `MEDIAN_TOLERANCE` of itself (as AIConfigurator's CI refuses a change that worsens its prediction error by more
 * than 5 %: ai-dynamo/aiconfigurator tools/accuracy_tracking).
 */
import type { ErrorReport } from './report';

/** How much worse than recorded a median may get, as a share of itself. */
export const MEDIAN_TOLERANCE = 0.05;

/** One line per median that got worse than the recorded one by more than the tolerance; empty when none did. */
export function medianRegressions(recorded: Pick<ErrorReport, 'leaveOneModelOut'>, now: ErrorReport['leaveOneModelOut']): string[] {
  return (['tpot', 'ttft'] as const)
    .filter((kind) => now[kind].median > recorded.leaveOneModelOut[kind].median * (1 + MEDIAN_TOLERANCE))
    .map((kind) => `${kind.toUpperCase()} leave-one-model-out median ${(now[kind].median * 100).toFixed(2)} % is worse than the recorded ` +
      `${(recorded.leaveOneModelOut[kind].median * 100).toFixed(2)} % by more than ${MEDIAN_TOLERANCE * 100} % of it`);
}

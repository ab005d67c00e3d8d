/**
 * Progress bars on the CLI's stderr (cli-progress) for commands whose work takes seconds. The command decides when
 * one is drawn: only when stderr is a terminal and the output is not `--json`, so a pipe or a script reads no bar.
 */
import { SingleBar } from 'cli-progress';
import type { PlanningProgress } from '../../lib/generative/types';
import type { CliIo } from './io';

/**
 * A stream for cli-progress that writes to the CLI's stderr and tells it a terminal is there: cli-progress draws on a
 * stream, the commands write through `CliIo`, and the caller has already checked that stderr is a terminal.
 */
export function terminalStream(io: CliIo): NodeJS.WritableStream {
  const stream = {
    isTTY: true,
    columns: 100,
    write: (s: string): boolean => {
      io.stderr(String(s));
      return true;
    },
  };
  return stream as unknown as NodeJS.WritableStream;
}

/** How long a plan runs before its progress is drawn: a plan that ends sooner (a single-call model's) draws nothing. */
export const PLAN_PROGRESS_AFTER_MS = 1000;

/** What a plan command gives the planner (`onProgress`) and calls when the plan is done (`stop`, clears the bar). */
export interface PlanProgressBar {
  readonly onProgress: (progress: PlanningProgress) => void;
  readonly stop: () => void;
}

/**
 * The progress of a plan as a bar of instance types weighed, drawn once the plan has run for
 * {@link PLAN_PROGRESS_AFTER_MS} and cleared when it ends, so the terminal keeps only the report.
 *
 * @param clock milliseconds now @default Date.now
 */
export function planProgressBar(io: CliIo, profileId: string, clock: () => number = Date.now): PlanProgressBar {
  const started = clock();
  let bar: SingleBar | undefined;
  return {
    onProgress: (p) => {
      if (bar === undefined) {
        if (clock() - started < PLAN_PROGRESS_AFTER_MS) {
          return;
        }
        bar = new SingleBar({
          stream: terminalStream(io),
          format: `Planning ${profileId} [{bar}] {value}/{total} instance types, last {instanceType}`,
          hideCursor: false,
          clearOnComplete: true,
        });
        bar.start(p.total, p.done, { instanceType: p.instanceType });
        return;
      }
      bar.update(p.done, { instanceType: p.instanceType });
    },
    stop: () => bar?.stop(),
  };
}

/**
 * Where a command writes: results to `stdout`, messages to `stderr`.
 *
 * Commands take it as a parameter instead of touching `process`, so tests capture the output and bin/cli.ts
 * decides the exit code.
 */
export interface CliIo {
  /** Writes results (tables, JSON) as given; the caller ends lines with `\n`. */
  readonly stdout: (s: string) => void;
  /** Writes messages (warnings, errors, progress) as given; the caller ends lines with `\n`. */
  readonly stderr: (s: string) => void;
}

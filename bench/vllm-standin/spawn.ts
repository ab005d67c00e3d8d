/**
 * Starts the stand-in engine as its own process (its timers then do not share an event loop with the client that
 * measures it) and waits for the line saying where it listens.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { StandinTiming } from './engine';

/** A stand-in process. */
export interface StandinProcess {
  readonly url: string;
  /** The timings it runs with, as it printed them. */
  readonly timing: StandinTiming;
  /** Stops it (SIGTERM) and waits for it to exit. */
  close(): Promise<void>;
}

const MAIN = path.join(__dirname, 'main.ts');
const ROOT = path.join(__dirname, '..', '..');

/**
 * Spawns `tsx bench/vllm-standin/main.ts <args>` on a free port.
 *
 * @param args the command line flags (see main.ts), e.g. `['--max-num-seqs', '2', '--step-ms', '20', ...]`
 * @throws Error with the process's stderr when it exits or says nothing within `startTimeoutMs`
 */
export function spawnStandin(args: readonly string[], startTimeoutMs = 20_000): Promise<StandinProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<StandinProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the stand-in did not start within ${startTimeoutMs} ms: ${stderr}`));
    }, startTimeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the stand-in exited with ${code}: ${stderr.trim()}`));
    });
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const newline = stdout.indexOf('\n');
      if (newline < 0) {
        return;
      }
      clearTimeout(timer);
      const { url, ...timing } = JSON.parse(stdout.slice(0, newline)) as { url: string } & StandinTiming;
      resolve({
        url,
        timing,
        close: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
          }
          await exited;
        },
      });
    });
  });
}

import { PLAN_PROGRESS_AFTER_MS, planProgressBar } from '../../bin/commands/progress';
import type { CliIo } from '../../bin/commands/io';

function capture(): { io: CliIo; stderr: () => string } {
  let err = '';
  return { io: { stdout: () => undefined, stderr: (s) => { err += s; } }, stderr: () => err };
}

describe('the progress of a plan on a terminal', () => {
  test('GIVEN a plan that ends within a second WHEN it reports progress THEN nothing is drawn', () => {
    const { io, stderr } = capture();
    let now = 0;
    const bar = planProgressBar(io, 'llama-3.1-8b-instruct', () => now);
    for (let done = 1; done <= 20; done += 1) {
      now = done * 40;
      bar.onProgress({ done, total: 20, instanceType: 'ml.inf2.xlarge' });
    }
    bar.stop();
    expect(stderr()).toBe('');
  });

  test('GIVEN a plan still running after a second WHEN it reports progress THEN a bar of instance types is drawn, then cleared', () => {
    const { io, stderr } = capture();
    let now = 0;
    const bar = planProgressBar(io, 'llama-3.1-8b-instruct', () => now);
    bar.onProgress({ done: 1, total: 20, instanceType: 'ml.inf1.xlarge' });
    now = PLAN_PROGRESS_AFTER_MS + 1;
    bar.onProgress({ done: 7, total: 20, instanceType: 'ml.inf2.48xlarge' });
    expect(stderr()).toContain('Planning llama-3.1-8b-instruct [');
    expect(stderr()).toContain('7/20 instance types, last ml.inf2.48xlarge');
    const drawn = stderr().length;
    bar.stop();
    // clearOnComplete: the line is erased, so the terminal keeps the report alone.
    expect(stderr().slice(drawn)).toMatch(/\u001b\[2K|\r/);
  });
});

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

/**
 * A temporary directory named `<prefix>XXXXXX`, made before each test (or once before all of them, with `'all'`) and
 * removed after it. Returns its path getter, to call inside a test or hook.
 */
export function tempDir(prefix: string, scope: 'each' | 'all' = 'each'): () => string {
  let dir: string | undefined;
  (scope === 'each' ? beforeEach : beforeAll)(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  (scope === 'each' ? afterEach : afterAll)(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error('the temporary directory exists only inside a test');
    return dir;
  };
}

/** Writes an executable bash script `bin/name` running `body`: a stand-in for a command the script under test calls. */
export function stubCommand(bin: string, name: string, body: string): void {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/bash\n${body}\n`);
  chmodSync(path, 0o755);
}

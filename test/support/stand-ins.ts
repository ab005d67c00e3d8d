/**
 * The AWS stand-ins the suite runs when they are installed: cfn-lint (CloudFormation's own linter) and moto_server
 * (AWS APIs on 127.0.0.1), both from PyPI. On a contributor's machine without them their tests skip with one line
 * saying what to install; `.ci/run` sets CDK_INFERENTIA_REQUIRE_STAND_INS=1, so in CI a missing tool fails the test.
 */
import { spawnSync } from 'child_process';

/** What to install, in the words the skip line uses. */
export const STAND_INS_INSTALL = 'pip install cfn-lint "moto[server]"';

/** The path of `command` on PATH, or undefined. */
export function toolPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : undefined;
}

/**
 * `describe` when `command` is installed; otherwise one line naming the install and a skipped block, or, where
 * CDK_INFERENTIA_REQUIRE_STAND_INS=1 (CI), a failing test.
 */
export function describeWithTool(command: string, title: string, body: (tool: string) => void): void {
  const tool = toolPath(command);
  if (tool !== undefined) {
    describe(title, () => body(tool));
    return;
  }
  if (process.env.CDK_INFERENTIA_REQUIRE_STAND_INS === '1') {
    describe(title, () => {
      test(`${command} is installed (CDK_INFERENTIA_REQUIRE_STAND_INS=1)`, () => {
        throw new Error(`${command} is not on PATH; install it: ${STAND_INS_INSTALL}`);
      });
    });
    return;
  }
  process.stderr.write(`skipped: ${title}: ${command} is not installed (${STAND_INS_INSTALL})\n`);
  describe.skip(title, () => body(command));
}

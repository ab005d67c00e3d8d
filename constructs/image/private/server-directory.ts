import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The model server's Docker build context, `serving/` at the package root.
 *
 * Seen from this file in the repository (`constructs/image/private/`) it is three levels up; seen from the compiled package
 * (`dist/constructs/image/private/`) four. The package ships `serving/` at its root (package.json `files`), without its
 * tests (serving/.npmignore).
 */
export const MODEL_SERVER_DIRECTORY: string | undefined = [
  path.join(__dirname, '..', '..', '..', 'serving'),
  path.join(__dirname, '..', '..', '..', '..', 'serving'),
].find((dir) => fs.existsSync(path.join(dir, 'Dockerfile')));

/** Where an image built with a handler keeps it; the server reads it from `MODEL_SERVER_CODE_DIR`. */
export const IMAGE_HANDLER_DIRECTORY = '/opt/cdk-inferentia/handler';

/** What the server's build context never needs: its tests, bytecode, and the compile script (a separate host runs it). */
const LEFT_OUT = new Set(['tests', '__pycache__', 'compile']);

/**
 * A build context of the model server with the user's handler directory in it, and a Dockerfile that copies it to
 * {@link IMAGE_HANDLER_DIRECTORY} (installing its `requirements.txt` when there is one) and points the server at it.
 *
 * Staged under the OS temporary directory, named by the content hash of both directories, so the same sources give
 * the same path and the same asset hash on every synth.
 *
 * @param serverDirectory the model server's sources ({@link MODEL_SERVER_DIRECTORY})
 * @param handlerDirectory the handler module (`inference.py` by default) and the files it imports
 */
export function stageServerWithHandler(serverDirectory: string, handlerDirectory: string): string {
  const hash = crypto.createHash('sha256');
  const files = (root: string): string[] => fs.readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((rel) => !rel.split(path.sep).some((part) => LEFT_OUT.has(part)) && fs.statSync(path.join(root, rel)).isFile())
    .sort();
  for (const [label, root] of [['server', serverDirectory], ['handler', handlerDirectory]] as const) {
    for (const rel of files(root)) {
      hash.update(`${label}/${rel}\0`).update(fs.readFileSync(path.join(root, rel))).update('\0');
    }
  }
  const staged = path.join(os.tmpdir(), `cdk-inferentia-server-${hash.digest('hex').slice(0, 16)}`);
  if (!fs.existsSync(path.join(staged, 'Dockerfile'))) {
    const building = `${staged}.${process.pid}.tmp`;
    fs.rmSync(building, { recursive: true, force: true });
    fs.cpSync(serverDirectory, building, { recursive: true, filter: (src) => !LEFT_OUT.has(path.basename(src)) });
    fs.cpSync(handlerDirectory, path.join(building, 'handler'), { recursive: true, filter: (src) => path.basename(src) !== '__pycache__' });
    const requirements = fs.existsSync(path.join(handlerDirectory, 'requirements.txt'));
    fs.appendFileSync(path.join(building, 'Dockerfile'), [
      '',
      '# The handler, staged by ModelImage.fromServer({ handler }): the image carries the code, the model data only the model.',
      `COPY handler/ ${IMAGE_HANDLER_DIRECTORY}/`,
      ...(requirements ? [`RUN python3 -m pip install --no-cache-dir -r ${IMAGE_HANDLER_DIRECTORY}/requirements.txt`] : []),
      `ENV MODEL_SERVER_CODE_DIR=${IMAGE_HANDLER_DIRECTORY}`,
      '',
    ].join('\n'));
    fs.rmSync(staged, { recursive: true, force: true });
    fs.renameSync(building, staged);
  }
  return staged;
}

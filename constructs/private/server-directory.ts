import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The model server's Docker build context, `serving/` at the package root.
 *
 * Seen from this file in the repository (`constructs/private/`) it is two levels up; seen from the compiled package
 * (`dist/constructs/private/`) three. The package ships `serving/` at its root (package.json `files`), without its
 * tests (serving/.npmignore).
 */
export const MODEL_SERVER_DIRECTORY: string | undefined = [
  path.join(__dirname, '..', '..', 'serving'),
  path.join(__dirname, '..', '..', '..', 'serving'),
].find((dir) => fs.existsSync(path.join(dir, 'Dockerfile')));

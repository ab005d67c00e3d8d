import * as fs from 'fs';
import * as path from 'path';

/**
 * The package's version, read from its package.json at run time.
 *
 * Not `import ... from '../package.json'`: the compiler would copy package.json into `dist/` (a second, wrong
 * manifest inside the package), and the relative path differs between the sources (`bin/`) and the build
 * (`dist/bin/`), so the file is found by walking up to the package's own manifest.
 */
export const version: string = readVersion(__dirname);

function readVersion(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'cdk-inferentia' && manifest.version !== undefined) {
        return manifest.version;
      }
    }
    if (path.dirname(dir) === dir) {
      throw new Error(`cdk-inferentia: no package.json of cdk-inferentia above ${from}; reinstall the package`);
    }
  }
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as api from '../../index';

/** Every `@example` block of the constructs' TSDoc, with the file it is in. */
function examples(dir: string): Array<{ file: string; code: string }> {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return examples(full);
    if (!entry.name.endsWith('.ts')) return [];
    const text = fs.readFileSync(full, 'utf8');
    return [...text.matchAll(/@example\n((?:\s*\*(?! @)(?!\/).*\n)+)/g)]
      .map((m) => ({ file: path.relative(process.cwd(), full), code: m[1].replace(/^\s*\* ?/gm, '') }));
  });
}

describe('The constructs\' TSDoc examples', () => {
  test('GIVEN every @example WHEN it calls a free function THEN the package exports that function', () => {
    const missing = examples(path.join(__dirname, '../../constructs')).flatMap(({ file, code }) =>
      [...code.matchAll(/(?<![.\w])([a-z][A-Za-z0-9]*)\(/g)]
        .map((m) => m[1])
        .filter((name) => !['if', 'for', 'while', 'switch', 'function', 'return'].includes(name))
        .filter((name) => typeof (api as Record<string, unknown>)[name] !== 'function')
        .map((name) => `${file}: ${name}(...)`));
    expect(missing).toEqual([]);
  });
});

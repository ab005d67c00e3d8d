import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ROOT, importCircles, packageImports, pythonRelativeImports, relativeImports, servingModules, sizedFiles, sourceFiles } from './source-graph';

const rel = (file: string): string => path.relative(ROOT, file);
const folderOf = (file: string): string => rel(file).split(path.sep)[0];

/** Where each folder may import from (docs/architecture.md draws the same arrows). */
const ALLOWED: Record<string, readonly string[]> = {
  'bin': ['bin', 'constructs', 'lib', 'io', 'index.ts'],
  'constructs': ['constructs', 'lib'],
  'lib': ['lib'],
  'io': ['io', 'lib'],
  'lambdas': ['lambdas', 'lib', 'io'],
  'index.ts': ['constructs', 'lib'],
};

describe('the source layout', () => {
  const files = sourceFiles();

  test('GIVEN every source file WHEN its relative imports are walked THEN no import circle exists', () => {
    const circles = importCircles(files).map((circle) => circle.map(rel).join(' -> '));
    expect(circles).toEqual([]);
  });

  test('GIVEN the model server\'s Python WHEN its relative imports, lazy ones included, are walked THEN no import circle exists', () => {
    const modules = servingModules();
    expect(modules.map(rel)).toEqual(expect.arrayContaining([path.join('serving', 'worker.py'), path.join('serving', 'vllm', 'launch.py')]));
    const circles = importCircles(modules, pythonRelativeImports).map((circle) => circle.map(rel).join(' -> '));
    expect(circles).toEqual([]);
  });

  test('GIVEN the layers WHEN a file imports another folder THEN only the arrows of docs/architecture.md are used', () => {
    const wrong = files.flatMap((file) => relativeImports(file)
      .filter((target) => !ALLOWED[folderOf(file)].includes(folderOf(target)))
      .map((target) => `${rel(file)} imports ${rel(target)}`));
    expect(wrong).toEqual([]);
  });

  test('GIVEN lib/ is pure WHEN its package imports are listed THEN none is the CDK, the AWS SDK, an HTTP client or I/O', () => {
    const impure = /^(aws-cdk-lib|constructs$|cdk-nag|@aws-sdk\/|@smithy\/|undici|(node:)?(fs|child_process|net|http|https|dgram)(\/|$))/;
    const wrong = files.filter((file) => folderOf(file) === 'lib')
      .flatMap((file) => packageImports(file).filter((spec) => impure.test(spec)).map((spec) => `${rel(file)} imports ${spec}`));
    expect(wrong).toEqual(KNOWN_IMPURE_LIB);
  });

  test('GIVEN a source, script, bench or Python file WHEN its lines are counted THEN none is over 500 (data tables excepted)', () => {
    const isDataTable = (file: string): boolean => /^lib\/(profiles|catalog)\/data\//.test(rel(file));
    const sized = sizedFiles();
    // The rule reaches the Python server, the benches and the scripts: a walk that found none of them would check
    // nothing there.
    expect(sized.map(rel)).toEqual(expect.arrayContaining([
      path.join('serving', 'frontend.py'), path.join('bench', 'serving.ts'), path.join('scripts', 'consumer-test.ts'),
    ]));
    const long = sized
      .filter((file) => !isDataTable(file))
      .map((file) => ({ file: rel(file), lines: fs.readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 500)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  test('GIVEN the package entries WHEN their import graphs are walked THEN neither reaches the AWS SDK, undici or io/', () => {
    // The consumer test measures the built package too (no SDK module loaded, the root within its module budget).
    const reach = (entry: string): Set<string> => {
      const seen = new Set<string>();
      const visit = (file: string): void => {
        if (seen.has(file)) return;
        seen.add(file);
        relativeImports(file).forEach(visit);
      };
      visit(path.join(ROOT, entry));
      return seen;
    };
    for (const entry of ['lib/index.ts', 'index.ts']) {
      const files = [...reach(entry)];
      const wrong = [
        ...files.filter((file) => folderOf(file) === 'io').map(rel),
        ...files.flatMap((file) => packageImports(file).filter((spec) => /^(@aws-sdk\/|undici)/.test(spec)).map((spec) => `${rel(file)} imports ${spec}`)),
      ];
      expect({ entry, wrong }).toEqual({ entry, wrong: [] });
    }
  });

  test('GIVEN the circle check WHEN two files import each other THEN it names them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'circle-'));
    fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import type { a } from './a';\nexport const b: typeof a | 1 = 1;\n");
    fs.writeFileSync(path.join(dir, 'c.ts'), "import { a } from './a';\nexport const c = a;\n");
    const circles = importCircles(['a.ts', 'b.ts', 'c.ts'].map((name) => path.join(dir, name)));
    expect(circles.map((circle) => circle.map((file) => path.basename(file)))).toEqual([['a.ts', 'b.ts']]);
  });

  test('GIVEN two Python modules of a package WHEN one imports the other inside a function THEN the circle is named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pycircle-'));
    fs.writeFileSync(path.join(dir, '__init__.py'), '');
    fs.writeFileSync(path.join(dir, 'a.py'), 'from . import protocol\nfrom .b import run\n');
    fs.writeFileSync(path.join(dir, 'b.py'), 'def run():\n    from .a import x\n');
    fs.writeFileSync(path.join(dir, 'protocol.py'), '');
    const files = ['a.py', 'b.py', 'protocol.py'].map((name) => path.join(dir, name));
    expect(pythonRelativeImports(files[0]).map((file) => path.basename(file))).toEqual(['protocol.py', 'b.py']);
    expect(importCircles(files, pythonRelativeImports).map((circle) => circle.map((file) => path.basename(file)))).toEqual([['a.py', 'b.py']]);
  });
});

/** lib/ files that still call AWS or the network; empty once they live in io/. */
const KNOWN_IMPURE_LIB: string[] = [];

/**
 * The project's own source graph, read with the TypeScript compiler's import scanner: every `.ts` file under the
 * source folders and the relative imports between them (type-only imports included: they still tie the files).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

export const ROOT = path.join(__dirname, '..', '..');
export const SOURCE_FOLDERS = ['bin', 'constructs', 'lib', 'lambdas', 'io'];

const rel = (file: string): string => path.relative(ROOT, file);

const isTypeScript = (name: string): boolean => name.endsWith('.ts') && !name.endsWith('.d.ts');

function walk(dir: string, keep: (name: string) => boolean): string[] {
  return (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === '__pycache__' ? [] : walk(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

export function sourceFiles(folders: readonly string[] = SOURCE_FOLDERS): string[] {
  return [...folders.flatMap((folder) => walk(path.join(ROOT, folder), isTypeScript)), path.join(ROOT, 'index.ts')];
}

/**
 * Every file the size rule holds: the TypeScript sources, the measurements in `bench/` (TypeScript and Python), and
 * the Python of the model server and its tests (`serving/`) (STYLE.md: "the same size rule holds there and in bench/"),
 * and the scripts (`scripts/`).
 */
export function sizedFiles(): string[] {
  const python = (name: string): boolean => name.endsWith('.py');
  return [
    ...sourceFiles(),
    ...walk(path.join(ROOT, 'bench'), (name) => isTypeScript(name) || python(name)),
    ...walk(path.join(ROOT, 'serving'), python),
    ...walk(path.join(ROOT, 'scripts'), isTypeScript),
  ];
}

/** The files a file imports, resolved to `.ts` paths; package imports are left out. */
export function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => {
      const base = path.resolve(path.dirname(file), spec);
      const hit = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
      if (!hit) throw new Error(`${path.relative(ROOT, file)} imports '${spec}', which resolves to no .ts file`);
      return hit;
    });
}

/** Every package a file imports by name (`aws-cdk-lib/aws-s3`, `@aws-sdk/client-s3`, `node:fs`). */
export function packageImports(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((ref) => ref.fileName).filter((spec) => !spec.startsWith('.'));
}

/**
 * The modules a Python file imports relatively (`from . import protocol`, `from .worker import Worker`), those inside
 * functions included: a lazy import still ties the two modules, it only hides the circle until the call.
 */
export function pythonRelativeImports(file: string): string[] {
  const found: string[] = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)/gm)) {
    const base = path.resolve(path.dirname(file), ...Array(m[1].length - 1).fill('..'), ...m[2].split('.').filter(Boolean));
    const module = (stem: string): string | undefined =>
      [`${stem}.py`, path.join(stem, '__init__.py')].find((candidate) => fs.existsSync(candidate));
    // `from .pkg import name`: name is a submodule when a file holds it, else a member of pkg.
    const targets = m[2] === ''
      ? m[3].split(',').map((name) => module(path.join(base, name.trim())) ?? module(base))
      : [module(base)];
    for (const target of targets) {
      if (target === undefined) throw new Error(`${path.relative(ROOT, file)}: '${m[0].trim()}' resolves to no .py file`);
      found.push(target);
    }
  }
  return found;
}

/** Every Python file of the model server, its tests left out (they import it by its absolute name). */
export function servingModules(): string[] {
  return walk(path.join(ROOT, 'serving'), (name) => name.endsWith('.py')).filter((file) => !rel(file).startsWith(path.join('serving', 'tests')));
}

/**
 * Each import circle once, as the list of files around it (Tarjan's strongly connected components).
 *
 * @param importsOf the files one file imports @default relativeImports (TypeScript)
 */
export function importCircles(files: readonly string[], importsOf: (file: string) => string[] = relativeImports): string[][] {
  const edges = new Map(files.map((file) => [file, importsOf(file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (edges.get(file) ?? []).includes(file)) circles.push(component.reverse());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}

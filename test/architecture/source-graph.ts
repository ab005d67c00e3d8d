/**
 * The project's own source graph, read with the TypeScript compiler's import scanner: every `.ts` file under the
 * source folders and the relative imports between them (type-only imports included: they still tie the files).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

export const ROOT = path.join(__dirname, '..', '..');
export const SOURCE_FOLDERS = ['bin', 'constructs', 'lib', 'lambdas', 'io'];

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

/** Each import circle once, as the list of files around it (Tarjan's strongly connected components). */
export function importCircles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((file) => [file, relativeImports(file)]));
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

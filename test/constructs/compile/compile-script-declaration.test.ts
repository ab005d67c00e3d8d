/**
 * The published declaration of `compileScript()` must compile for a consumer without Node's types (TypeScript 7
 * defaults to `types: []`): it may name `Uint8Array` (the language's), never `Buffer` (@types/node's).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

describe('compileScript() declares no Node type', () => {
  test('GIVEN the declaration emitted for neuron-compile-job.ts THEN compileScript returns Uint8Array content, and Buffer appears nowhere', () => {
    const file = path.join(__dirname, '..', '..', '..', 'constructs', 'compile', 'neuron-compile-job.ts');
    const { outputText } = ts.transpileDeclaration(fs.readFileSync(file, 'utf8'), { fileName: file, compilerOptions: { declaration: true } });
    expect(outputText).toMatch(/export declare function compileScript\(\): \{\s*path: string;\s*content: Uint8Array;\s*\};/);
    expect(outputText).not.toMatch(/\bBuffer\b/);
  });
});

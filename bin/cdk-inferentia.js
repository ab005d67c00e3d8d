#!/usr/bin/env node
// The `cdk-inferentia` command. A clone runs the TypeScript sources through tsx, so it needs no build step and never
// runs a stale dist/ left by an earlier build; the installed package ships no sources (package.json `files`) and
// runs its compiled build with plain Node, without tsx.
const fs = require('fs');
const path = require('path');

const source = path.join(__dirname, 'cli.ts');
if (fs.existsSync(source)) {
  require('tsx/cjs');
  require(source).main();
} else {
  require(path.join(__dirname, '..', 'dist', 'bin', 'cli.js')).main();
}

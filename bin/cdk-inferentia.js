#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so a fresh clone needs no build step.
require('tsx/cjs');
require('./cli.ts').main();

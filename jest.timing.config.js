/** The latency-judging tests `jest.config.js` leaves out, run alone after the others (`npm test` runs both). */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: undefined,
  testPathIgnorePatterns: ['/node_modules/'],
  testRegex: base.TIMING_TESTS.map((p) => p.replace('<rootDir>/', '').replace(/\./g, '\\.') + '$'),
  maxWorkers: 1,
};

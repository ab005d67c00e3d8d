/**
 * The example app's context-key check as a pure function: every key it does not read is named with the nearest one it
 * does, CDK's own keys pass. One app-level test (test/bin/app.test.ts) shows the check runs before any stack.
 */
import { CONTEXT_KEYS, nearestKey, unknownContextKeyProblems } from '../../bin/context-keys';

const DIGEST = `sha256:${'0'.repeat(64)}`;

describe('The example app\'s context keys', () => {
  test.each([
    // Five edits from the key meant: closestName's two-edit rule let it through, and synth ignored it for 56 s.
    ['llama70bTrn2Digest', DIGEST, `context llama70bTrn2Digest="${DIGEST}" is read by no example stack; the nearest key it reads is `
      + `llama70bTrn2ImageDigest (-c llama70bTrn2ImageDigest=${DIGEST}); the keys it reads: ${CONTEXT_KEYS.join(', ')}`],
    // A field of the environments config given as context: sent to the file.
    ['generativeImageDigest', DIGEST, `context generativeImageDigest="${DIGEST}" is read by no example stack: generativeImageDigest is a field of `
      + `the environments config (the file of -c environments, examples/environments.json in cdk.json); set "generativeImageDigest": "${DIGEST}" there`],
    ['throughtput', '5', 'context throughtput="5" is read by no example stack; did you mean -c throughput=5?'],
    ['llamaE2EP99', 3000, 'context llamaE2EP99=3000 is read by no example stack; did you mean -c llamaE2eP99=3000?'],
  ])('GIVEN -c %s=%j THEN it is refused, naming the key to use', (key, value, problem) => {
    expect(unknownContextKeyProblems({ [key]: value })).toEqual([problem]);
  });

  test('GIVEN a key far from all (-c myFlag=1) THEN the nearest is still named, with the list', () => {
    expect(unknownContextKeyProblems({ myFlag: '1' })).toEqual([expect.stringMatching(/^context myFlag="1" is read by no example stack; the nearest key it reads is \w+ /)]);
  });

  test('GIVEN the keys CDK sets or owns THEN none is refused', () => {
    expect(unknownContextKeyProblems({
      '@aws-cdk/core:validateAgainstDefaultRules': true,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:enable-path-metadata': true,
      'availability-zones:account=123456789012:region=us-east-1': ['us-east-1a'],
      'acknowledged-issue-numbers': [32775],
      'cli-telemetry': false,
      '//': 'a comment',
      '//environments': 'a comment',
      ...Object.fromEntries(CONTEXT_KEYS.map((k) => [k, 'x'])),
    })).toEqual([]);
  });

  test('nearestKey prefers shared words, then fewer edits', () => {
    expect(nearestKey('llamaDigest', CONTEXT_KEYS)).toBe('llamaImageDigest');
    expect(nearestKey('trn2ImageDigest', CONTEXT_KEYS)).toBe('llama70bTrn2ImageDigest');
  });
});

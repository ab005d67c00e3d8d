import { checkAnswer, parseJsonPath, selectJsonPath } from '../../../lib/bench';

describe('checkAnswer judges the status first, then the golden response', () => {
  test('GIVEN an unexpected status WHEN checked THEN the status names the error kind', () => {
    expect(checkAnswer(503, '', 200)).toBe('http-503');
    expect(checkAnswer(424, '{}', 200)).toBe('model-error');
    expect(checkAnswer(429, '{}', 200)).toBe('throttled');
    expect(checkAnswer(200, '{}', 201)).toBe('http-200');
  });

  test('GIVEN the expected status and no golden response WHEN checked THEN the answer is correct', () => {
    expect(checkAnswer(200, 'anything', 200)).toBeUndefined();
    expect(checkAnswer(201, '', 201)).toBeUndefined();
  });

  test('GIVEN an exact JSON check WHEN the body is deep-equal (key order aside) THEN it is correct, else a wrong answer', () => {
    const check = { kind: 'json', value: { label: 'cat', scores: [0.9, 0.1] } } as const;
    expect(checkAnswer(200, '{"scores":[0.9,0.1],"label":"cat"}', 200, check)).toBeUndefined();
    expect(checkAnswer(200, '{"scores":[0.1,0.9],"label":"cat"}', 200, check)).toBe('wrong-answer');
    expect(checkAnswer(200, '{"label":"cat"}', 200, check)).toBe('wrong-answer');
    expect(checkAnswer(200, 'not json', 200, check)).toBe('wrong-answer');
  });

  test('GIVEN a JSON path check WHEN the value at the path matches THEN it is correct, else a wrong answer', () => {
    const check = { kind: 'json-path', path: '$.predictions[1].label', value: 'dog' } as const;
    const body = JSON.stringify({ predictions: [{ label: 'cat' }, { label: 'dog', score: 0.7 }] });
    expect(checkAnswer(200, body, 200, check)).toBeUndefined();
    expect(checkAnswer(200, body.replace('dog', 'fox'), 200, check)).toBe('wrong-answer');
    expect(checkAnswer(200, '{"predictions":[]}', 200, check)).toBe('wrong-answer');
    expect(checkAnswer(200, '[', 200, check)).toBe('wrong-answer');
  });

  test('GIVEN a JSON path to an object WHEN checked THEN the whole sub-document is compared', () => {
    const check = { kind: 'json-path', path: '$.a', value: { b: [1, 2] } } as const;
    expect(checkAnswer(200, '{"a":{"b":[1,2]},"c":3}', 200, check)).toBeUndefined();
    expect(checkAnswer(200, '{"a":{"b":[1,2],"x":0}}', 200, check)).toBe('wrong-answer');
  });

  test('GIVEN a regex check WHEN the body matches THEN it is correct, else a wrong answer', () => {
    const check = { kind: 'regex', pattern: '"label":\\s*"(cat|dog)"' } as const;
    expect(checkAnswer(200, '{"label": "dog"}', 200, check)).toBeUndefined();
    expect(checkAnswer(200, '{"label": "fox"}', 200, check)).toBe('wrong-answer');
  });
});

describe('parseJsonPath reads dotted paths with array indexes and quoted keys', () => {
  test.each([
    ['$', []],
    ['$.a', ['a']],
    ['$.a.b[0].c', ['a', 'b', 0, 'c']],
    ['$[2][10]', [2, 10]],
    ["$['class-name'].x", ['class-name', 'x']],
    ['$["a.b"]', ['a.b']],
    ['$.generated_text', ['generated_text']],
  ])('GIVEN %s WHEN parsed THEN the steps are %j', (path, steps) => {
    expect(parseJsonPath(path)).toEqual(steps);
  });

  test.each(['a.b', '$.', '$..a', '$[x]', '$[-1]', '$.a[0', "$['a]"])(
    'GIVEN the malformed path %s WHEN parsed THEN the error shows an example of the syntax',
    (path) => {
      expect(() => parseJsonPath(path)).toThrow(/\$\.predictions\[0\]\.label/);
    },
  );

  test('GIVEN a path WHEN it is followed through a document THEN missing steps are told apart from null values', () => {
    const document = { a: [{ b: null }] };
    expect(selectJsonPath(document, ['a', 0, 'b'])).toEqual({ found: true, value: null });
    expect(selectJsonPath(document, ['a', 1, 'b'])).toEqual({ found: false });
    expect(selectJsonPath(document, ['a', 'length'])).toEqual({ found: false });
    expect(selectJsonPath(document, ['a', 0, 'toString'])).toEqual({ found: false });
  });
});

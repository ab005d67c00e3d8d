import { InputError } from '../../../lib/errors';
import { closestProfileIds, findProfile, profileIds, requireProfile } from '../../../lib/profiles';

describe('requireProfile resolves an id or explains which ids exist', () => {
  test('a known id returns its profile', () => {
    expect(requireProfile('resnet50')).toBe(findProfile('resnet50'));
  });

  test("an unknown id lists the known models, closest first", () => {
    // GIVEN 'bert-base', which is no table's name
    // WHEN resolved
    let error: unknown;
    try {
      requireProfile('bert-base');
    } catch (e) {
      error = e;
    }
    // THEN an InputError names it and lists every id, the ones starting with it first
    expect(error).toBeInstanceOf(InputError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^unknown model 'bert-base'; known models: bert-base-cased, bert-base-uncased, bert-base-cased-finetuned-mrpc, /,
    );
    for (const id of profileIds()) {
      expect(message).toContain(id);
    }
    expect(message).toContain('--profile FILE');
  });

  test('a case slip puts the intended id first', () => {
    expect(closestProfileIds('ResNet50')[0]).toBe('resnet50');
    expect(closestProfileIds('bert-base-uncase')[0]).toBe('bert-base-uncased');
  });

  test('a generative id names the generative lookup instead of listing single-call models', () => {
    // GIVEN 'qwen3-32b', a built-in generative profile (planned in tokens, not by requireProfile)
    // WHEN resolved as a single-call model
    // THEN the error says it is generative and names the real lookup and the CLI path
    expect(() => requireProfile('qwen3-32b')).toThrow(InputError);
    expect(() => requireProfile('qwen3-32b')).toThrow(
      /'qwen3-32b' is a generative model.*findGenerativeProfile\('qwen3-32b'\).*planGenerative/,
    );
    expect(() => requireProfile('qwen3-32b')).not.toThrow(/known models/);
  });
});

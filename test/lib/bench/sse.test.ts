import fc from 'fast-check';
import { SseDecoder } from '../../../lib/bench/sse';

/** Feeds `bytes` cut at `cuts` and collects every event. */
function decode(bytes: Uint8Array, cuts: number[]): string[] {
  const decoder = new SseDecoder();
  const events: string[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    events.push(...decoder.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...decoder.push(bytes.subarray(start)), ...decoder.end());
  return events;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('SseDecoder frames server-sent events however the bytes are cut', () => {
  test('GIVEN a vLLM stream WHEN fed whole THEN each data payload comes out once, [DONE] included', () => {
    const stream = 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n';

    expect(decode(utf8(stream), [])).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
  });

  test('GIVEN CRLF and CR line ends, comments, other fields and multi-line data WHEN decoded THEN the specification is followed', () => {
    const stream = ': keep-alive\r\nevent: message\r\ndata: one\r\ndata:two\r\n\r\nid: 7\rdata: three\r\rdata: unterminated';

    expect(decode(utf8(stream), [])).toEqual(['one\ntwo', 'three']);
  });

  test('GIVEN any events with multi-byte text WHEN the bytes are cut anywhere (inside CRLF, inside a character) THEN the same events come out', () => {
    const payload = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '{', '"', ' ', ':'), maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(payload, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(400), { maxLength: 12 }),
        (payloads, eol, cuts) => {
          const bytes = utf8(payloads.map((p) => `data: ${p}${eol}${eol}`).join(''));

          expect(decode(bytes, cuts)).toEqual(payloads);
        },
      ),
      { numRuns: 300 },
    );
  });
});

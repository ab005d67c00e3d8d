/**
 * Server-sent events framing, as a streamed completion arrives: bytes in arbitrary pieces (TCP reads, or the
 * PayloadPart events of SageMaker's `InvokeEndpointWithResponseStream`, which cut the container's bytes wherever
 * they fall), out come whole events' `data`.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

/**
 * Decodes an event stream incrementally: feed it pieces, get back the `data` of every event the pieces complete.
 *
 * Lines end in CRLF, LF or CR; a piece may end inside a line, inside a CRLF or inside a UTF-8 character. Fields other
 * than `data` (`event`, `id`, `retry`) and comments (`:` lines) are ignored: OpenAI-compatible servers send only
 * `data`. Several `data` lines of one event are joined with LF, as the specification says.
 */
export class SseDecoder {
  private readonly utf8 = new TextDecoder('utf-8');
  private pending = '';
  private data: string[] = [];
  private hasData = false;

  /** Feeds one piece; returns the data of the events it completes, in order. */
  push(piece: Uint8Array | string): string[] {
    const text = typeof piece === 'string' ? piece : this.utf8.decode(piece, { stream: true });
    return this.consume(this.pending + text, false);
  }

  /** Ends the stream: an event the stream ends in without its blank line is dropped, as the specification says. */
  end(): string[] {
    const rest = this.pending + this.utf8.decode();
    this.pending = '';
    return rest === '' ? [] : this.consume(rest, true);
  }

  private consume(text: string, final: boolean): string[] {
    const events: string[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) {
        continue;
      }
      if (c === 13 && i + 1 === text.length && !final) {
        // A CR at the end of a piece may be the first half of a CRLF: wait for the next piece.
        break;
      }
      this.line(text.slice(start, i), events);
      if (c === 13 && text.charCodeAt(i + 1) === 10) {
        i++;
      }
      start = i + 1;
    }
    this.pending = text.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.hasData) {
        events.push(this.data.join('\n'));
      }
      this.data = [];
      this.hasData = false;
      return;
    }
    if (line.startsWith(':')) {
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') {
      return;
    }
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    this.data.push(value);
    this.hasData = true;
  }
}

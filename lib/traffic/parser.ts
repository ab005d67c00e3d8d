/**
 * A traffic file read line by line, whatever its format: the edge streams the lines in (`io/traffic`), this decides
 * the format from the first line, reads each row's counts and time (`records.ts`) and keeps only those numbers, in
 * typed arrays, so a million rows cost a few megabytes. `finish` turns them into a summary (`statistics.ts`).
 *
 * Formats: a CSV with a header row; JSON lines (one object a line); or one JSON document (an array, or a benchmark
 * export's object), which is the only shape kept whole until the end, since a document is parsed at once.
 */
import { InputError } from '../errors';
import type { CsvColumns, JsonShape, TrafficRecord } from './records';
import { csvColumns, csvRecord, describeHeader, documentRecords, jsonRecord, KNOWN_COLUMNS, RecordProblem, SHAPE_NAMES } from './records';
import { summarize } from './statistics';
import type { TrafficFormat, TrafficSummary } from './types';

/** What every "no usable row" message ends with: the formats this reader takes. */
export const ACCEPTED_FORMATS =
  'give a CSV with a header row naming the prompt and output token columns (input_tokens,output_tokens, or ' +
  'prompt_tokens,completion_tokens) and optionally a timestamp column; JSON lines with OpenAI-style usage ' +
  '({"created":1717000000,"usage":{"prompt_tokens":812,"completion_tokens":96}}), Amazon Bedrock invocation logs or ' +
  'AIPerf profile_export.jsonl; or a vllm bench serve --save-detailed, guidellm or LLMPerf individual_responses JSON export';

/** Growable column of numbers. */
class Column {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

type Mode =
  | { readonly kind: 'start' }
  | { readonly kind: 'csv'; readonly columns: CsvColumns; readonly delimiter: string }
  | { readonly kind: 'jsonl'; shape?: JsonShape; shapeLine?: number }
  | { readonly kind: 'document'; readonly lines: string[] };

/**
 * Reads a traffic file's lines in order; `finish` summarises them.
 *
 * @example
 * const parser = new TrafficParser('rag.csv');
 * for (const line of text.split('\n')) parser.line(line);
 * const summary = parser.finish();
 */
export class TrafficParser {
  private mode: Mode = { kind: 'start' };
  private lineNumber = 0;
  /** A CSV row whose quoted cell runs on to the next line, with the line it started on. */
  private pending?: { text: string; line: number };
  private readonly input = new Column();
  private readonly output = new Column();
  private readonly time = new Column();
  private failed = 0;
  private withoutCounts = 0;
  private rows = 0;
  private timeField?: string;
  /** Whether the rows carry token counts, from the first usable row on. */
  private hasLengths?: boolean;

  /** @param file the file's name, as messages and the plan name it */
  constructor(readonly file: string) {}

  /**
   * Reads the next line (without its line break).
   *
   * @throws InputError naming the file, the line and the fix
   */
  line(raw: string): void {
    this.lineNumber++;
    const text = this.lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    const mode = this.mode;
    if (mode.kind === 'document') {
      mode.lines.push(text);
      return;
    }
    if (this.pending !== undefined) {
      this.csvLine(`${this.pending.text}\n${text}`, this.pending.line);
      return;
    }
    if (text === '' || (text.charCodeAt(0) <= 32 && text.trim() === '')) {
      return;
    }
    if (mode.kind === 'start') {
      this.firstLine(text);
      return;
    }
    if (mode.kind === 'csv') {
      this.csvLine(text, this.lineNumber);
      return;
    }
    this.jsonLine(text, mode);
  }

  /**
   * The summary of every row read.
   *
   * @throws InputError when the file is empty, holds no usable row, or ends inside a quoted cell or a JSON document
   */
  finish(): TrafficSummary {
    const mode = this.mode;
    if (mode.kind === 'start') {
      throw new InputError(`${this.file}: the file is empty; ${ACCEPTED_FORMATS}`);
    }
    if (this.pending !== undefined) {
      throw new InputError(`${this.file} line ${this.pending.line}: a quoted cell is never closed; close its quote (") or remove it`);
    }
    let format: TrafficFormat = mode.kind === 'csv' ? 'csv' : 'jsonl';
    if (mode.kind === 'document') {
      format = this.document(mode.lines);
    }
    if (this.rows === 0) {
      const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
      const skipped = this.failed > 0 ? ` (${plural(this.failed, 'failed request')} left out)` : this.withoutCounts > 0 ? ` (${plural(this.withoutCounts, 'line')} without token counts)` : '';
      throw new InputError(`${this.file}: no row with token counts or arrival times${skipped}; ${ACCEPTED_FORMATS}`);
    }
    return summarize({
      file: this.file,
      format,
      input: this.input.length > 0 ? this.input.values() : undefined,
      output: this.output.length > 0 ? this.output.values() : undefined,
      times: this.time.length > 0 ? this.time.values() : undefined,
      timeField: this.timeField,
      skipped: { failed: this.failed, withoutCounts: this.withoutCounts },
    });
  }

  /** @param where `line 17`, or `request 17` of a document */
  private fail(where: string, problem: string): never {
    throw new InputError(`${this.file} ${where}: ${problem}`);
  }

  private firstLine(text: string): void {
    const trimmed = text.trim();
    if (trimmed.startsWith('[')) {
      this.mode = { kind: 'document', lines: [text] };
      return;
    }
    if (trimmed.startsWith('{')) {
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch {
        // A document printed over several lines: it is parsed whole at the end.
        this.mode = { kind: 'document', lines: [text] };
        return;
      }
      const document = documentRecordsAt(this.file, this.lineNumber, value);
      if (document !== undefined) {
        this.mode = { kind: 'document', lines: [text] };
        return;
      }
      const mode: Mode = { kind: 'jsonl' };
      this.mode = mode;
      this.jsonValue(value, mode);
      return;
    }
    const delimiter = text.includes('\t') && !text.includes(',') ? '\t' : ',';
    const header = splitCsv(text, delimiter);
    if (header === undefined) {
      this.fail(`line ${this.lineNumber}`, 'the header row has an unclosed quote');
    }
    const columns = csvColumns(header);
    if ((columns.input === undefined || columns.output === undefined) && columns.time === undefined) {
      const missing = [columns.input === undefined ? `prompt tokens (${KNOWN_COLUMNS.input})` : '', columns.output === undefined ? `output tokens (${KNOWN_COLUMNS.output})` : '']
        .filter((m) => m !== '').join(' and ');
      this.fail(`line ${this.lineNumber}`, `not a traffic file: no column of ${missing}, and none of arrival times (${KNOWN_COLUMNS.time}); ${describeHeader(header)}. ${ACCEPTED_FORMATS}`);
    }
    if ((columns.input === undefined) !== (columns.output === undefined)) {
      this.fail(`line ${this.lineNumber}`, `the header names ${columns.input === undefined ? 'output tokens but no prompt tokens column' : 'prompt tokens but no output tokens column'} (${columns.input === undefined ? KNOWN_COLUMNS.input : KNOWN_COLUMNS.output}); name both, or neither for arrival times only`);
    }
    if (columns.time !== undefined) {
      this.timeField = columns.time.name;
    }
    this.mode = { kind: 'csv', columns, delimiter };
  }

  private csvLine(text: string, line: number): void {
    const mode = this.mode as Extract<Mode, { kind: 'csv' }>;
    const cells = splitCsv(text, mode.delimiter);
    if (cells === undefined) {
      // A quoted cell runs on: the next line continues the row.
      this.pending = { text, line };
      return;
    }
    this.pending = undefined;
    // A JSON line among CSV rows is told apart only once the row does not read: the common row pays nothing for it.
    const mixed = () => /^\s*[{[]/.test(text) ? 'is a JSON line in a CSV file: one format per file; export the rows in one format' : undefined;
    if (cells.length !== mode.columns.count) {
      this.fail(`line ${line}`, mixed() ?? `has ${cells.length} cells where the header has ${mode.columns.count}; quote cells that hold the delimiter, or fix the row`);
    }
    try {
      this.add(csvRecord(cells, mode.columns), `line ${line}`);
    } catch (e) {
      const json = mixed();
      if (json !== undefined) {
        this.fail(`line ${line}`, json);
      }
      this.rethrow(e, `line ${line}`);
    }
  }

  private jsonLine(text: string, mode: Extract<Mode, { kind: 'jsonl' }>): void {
    const trimmed = text.trim();
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.fail(`line ${this.lineNumber}`, trimmed.startsWith('{') || trimmed.startsWith('[')
        ? 'is not valid JSON (a line cut short, or a document printed over several lines in a JSON lines file); give one JSON object a line'
        : 'is not JSON where the lines before were JSON lines: one format per file; export the rows in one format');
    }
    this.jsonValue(value, mode);
  }

  private jsonValue(value: unknown, mode: Extract<Mode, { kind: 'jsonl' }>): void {
    try {
      const read = jsonRecord(value);
      this.timeField ??= read.timeField;
      if (read.shape !== undefined) {
        if (mode.shape === undefined) {
          mode.shape = read.shape;
          mode.shapeLine = this.lineNumber;
        } else if (read.shape !== mode.shape) {
          this.fail(`line ${this.lineNumber}`, `is ${SHAPE_NAMES[read.shape]} where line ${mode.shapeLine} was ${SHAPE_NAMES[mode.shape]}: one format per file; read each log on its own`);
        }
      }
      if (read.failed) {
        this.failed++;
        return;
      }
      if (read.record === undefined) {
        this.withoutCounts++;
        return;
      }
      this.add(read.record, `line ${this.lineNumber}`);
    } catch (e) {
      this.rethrow(e, `line ${this.lineNumber}`);
    }
  }

  /** Parses a document kept whole, returning its format. */
  private document(lines: readonly string[]): TrafficFormat {
    let value: unknown;
    try {
      value = JSON.parse(lines.join('\n'));
    } catch {
      // The parser's message may quote the text around the fault: it is not repeated.
      this.fail('line 1', `starts a JSON document that does not parse (cut short, or not JSON); ${ACCEPTED_FORMATS}`);
    }
    const read = documentRecordsAt(this.file, 1, value);
    if (read === undefined) {
      this.fail('line 1', `is a JSON document of no export this reader knows; ${ACCEPTED_FORMATS}`);
    }
    this.failed += read.failed;
    this.timeField ??= read.timeField;
    read.records.forEach((record, i) => this.add(record, `request ${i}`));
    return read.format;
  }

  private add(record: TrafficRecord, where: string): void {
    const hasLengths = record.input !== undefined && record.output !== undefined;
    if (!hasLengths && (record.input !== undefined || record.output !== undefined)) {
      this.fail(where, `has ${record.input !== undefined ? 'prompt tokens but no output tokens' : 'output tokens but no prompt tokens'}; every row needs both`);
    }
    if (!hasLengths && record.time === undefined) {
      this.withoutCounts++;
      return;
    }
    // Rows are all lengths or all arrival times only: a column's values must line up with the rows they came from.
    this.hasLengths ??= hasLengths;
    if (this.hasLengths !== hasLengths) {
      this.fail(where, this.hasLengths
        ? 'has no token counts where earlier rows had them; every row needs its prompt and output tokens'
        : 'has token counts where earlier rows had none; give counts on every row or on none');
    }
    if (hasLengths) {
      this.input.push(record.input as number);
      this.output.push(record.output as number);
    }
    if (record.time !== undefined) {
      this.time.push(record.time);
    }
    this.rows++;
  }

  private rethrow(e: unknown, where: string): never {
    if (e instanceof RecordProblem) {
      this.fail(where, e.message);
    }
    throw e;
  }
}

function documentRecordsAt(file: string, line: number, value: unknown): ReturnType<typeof documentRecords> {
  try {
    return documentRecords(value);
  } catch (e) {
    if (e instanceof RecordProblem) {
      throw new InputError(`${file} line ${line}: ${e.message}`);
    }
    throw e;
  }
}

/**
 * The cells of a CSV line (RFC 4180: a cell in double quotes may hold the delimiter, doubled quotes and line breaks);
 * undefined while a quoted cell is still open at the end of the text.
 */
export function splitCsv(text: string, delimiter = ','): string[] | undefined {
  if (!text.includes('"')) {
    return text.split(delimiter);
  }
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        cell += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === delimiter) {
      cells.push(cell);
      cell = '';
    } else {
      cell += c;
    }
  }
  if (quoted) {
    return undefined;
  }
  cells.push(cell);
  return cells;
}

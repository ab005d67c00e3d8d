/**
 * Reading one request's token counts and arrival time out of a row of a log or a benchmark export. Only numbers are
 * read; a row's prompt or answer text is never kept, and no message repeats a cell that is not a number.
 *
 * Where the names come from:
 * - OpenAI-style `usage` (`prompt_tokens`, `completion_tokens`, `created` in epoch seconds), as the OpenAI API and
 *   vLLM's OpenAI-compatible server answer and API gateways log it; `input_tokens` / `output_tokens` as the
 *   Responses API names them. https://platform.openai.com/docs/api-reference/chat/object
 * - Amazon Bedrock model invocation logs: `timestamp`, `input.inputTokenCount`, `output.outputTokenCount`.
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-invocation-logging.html
 * - AIPerf `profile_export.jsonl`: `metrics.input_sequence_length.value`, `metrics.output_sequence_length.value`,
 *   `metadata.request_start_ns`, `error`. https://github.com/ai-dynamo/aiperf (docs/tutorials/working-with-profile-exports.md)
 * - `vllm bench serve --save-result --save-detailed`: `input_lens`, `output_lens`, `start_times`, `errors`.
 *   https://github.com/vllm-project/vllm/blob/main/vllm/benchmarks/serve.py
 * - guidellm: `benchmarks[].requests.successful[]` with `prompt_tokens`, `output_tokens`, `request_start_time`.
 *   https://github.com/vllm-project/guidellm (src/guidellm/schemas/request_stats.py)
 * - LLMPerf `*_individual_responses.json`: `number_input_tokens`, `number_output_tokens`, `error_code`.
 *   https://github.com/ray-project/llmperf (src/llmperf/common_metrics.py)
 * - Azure LLM inference traces: `TIMESTAMP`, `ContextTokens`, `GeneratedTokens`. https://github.com/Azure/AzurePublicDataset
 */

/** One request: its prompt and output tokens and its arrival, in seconds (any origin), where the row has them. */
export interface TrafficRecord {
  readonly input?: number;
  readonly output?: number;
  readonly time?: number;
}

/** A row that cannot be read: what is wrong, in words that repeat no text of the row. */
export class RecordProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordProblem';
  }
}

/** Column names (lower case, letters and digits only) of prompt tokens, in CSV headers and JSON objects. */
const INPUT_NAMES = ['inputtokens', 'prompttokens', 'contexttokens', 'inputlens', 'inputlen', 'numberinputtokens', 'inputsequencelength', 'promptlen', 'inputtokencount'];
/** Column names of output tokens. */
const OUTPUT_NAMES = ['outputtokens', 'completiontokens', 'generatedtokens', 'outputlens', 'outputlen', 'numberoutputtokens', 'outputsequencelength', 'outputtokencount'];
/** Column names of arrival times. */
const TIME_NAMES = ['timestamp', 'created', 'time', 'starttime', 'requeststarttime', 'arrivaltime', 'requeststartns', 'timestampns', 'timestampms', 'createdat'];

/** The column names this reader knows, as a user writes them, for messages. */
export const KNOWN_COLUMNS = {
  input: 'input_tokens, prompt_tokens, ContextTokens, input_lens, number_input_tokens, input_sequence_length',
  output: 'output_tokens, completion_tokens, GeneratedTokens, output_lens, number_output_tokens, output_sequence_length',
  time: 'timestamp, created, time, start_time, request_start_time, arrival_time, request_start_ns',
} as const;

/** `Input_Tokens` -> `inputtokens`. */
export function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** How a time column's numbers are read: their unit from the name's suffix, else from their size. */
export type TimeUnit = 's' | 'ms' | 'us' | 'ns' | 'auto';

function unitOfName(normalized: string): TimeUnit {
  return normalized.endsWith('ns') ? 'ns' : normalized.endsWith('ms') ? 'ms' : normalized.endsWith('us') ? 'us' : 'auto';
}

/** The columns of a CSV header that hold counts and times. */
export interface CsvColumns {
  readonly input?: number;
  readonly output?: number;
  readonly time?: { readonly index: number; readonly name: string; readonly unit: TimeUnit };
  readonly count: number;
}

/** Finds the count and time columns of a header row; neither counts nor times is a problem the caller reports. */
export function csvColumns(header: readonly string[]): CsvColumns {
  const names = header.map(normalizedName);
  const find = (list: readonly string[]) => {
    const index = names.findIndex((n) => list.includes(n));
    return index >= 0 ? index : undefined;
  };
  const timeIndex = find(TIME_NAMES);
  return {
    input: find(INPUT_NAMES),
    output: find(OUTPUT_NAMES),
    ...(timeIndex !== undefined ? { time: { index: timeIndex, name: header[timeIndex].trim(), unit: unitOfName(names[timeIndex]) } } : {}),
    count: header.length,
  };
}

/**
 * What a header without the columns looked like, for a message: its number of cells only. A file that is not a
 * traffic file may open with anything (a prompt, a note), and no cell of it is repeated.
 */
export function describeHeader(header: readonly string[]): string {
  return `its first row has ${header.length} cell${header.length === 1 ? '' : 's'}, none named as one of these`;
}

/**
 * A token count from a cell or a JSON value: a whole number of at least 0.
 *
 * @throws RecordProblem naming the field and what is wrong, repeating the value only when it reads as a number
 */
export function tokenCount(value: unknown, field: string): number | undefined {
  // The common case first, a plain whole number (a million rows pass here).
  if (typeof value === 'string' && DIGITS.test(value)) {
    return +value;
  }
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  const text = typeof value === 'string' ? value.trim() : value;
  const n = typeof text === 'number' ? text : typeof text === 'string' && NUMBER.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) {
    throw new RecordProblem(`${field} is not a number of tokens`);
  }
  if (n < 0) {
    throw new RecordProblem(`${field} is ${n}: a token count cannot be negative`);
  }
  if (!Number.isInteger(n)) {
    throw new RecordProblem(`${field} is ${n}: a token count is a whole number`);
  }
  return n;
}

const DIGITS = /^\d+$/;
const NUMBER = /^[-+]?\d+(\.\d*)?([eE][-+]?\d+)?$/;
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An arrival time in seconds from a number (epoch or relative; nanoseconds, microseconds, milliseconds or seconds by
 * the field's name, else by size: above 1e17 nanoseconds, 1e14 microseconds, 1e11 milliseconds) or an ISO 8601
 * string (a date and a time, to any fraction of a second; without a zone, UTC).
 *
 * @throws RecordProblem when it is neither
 */
export function arrivalTime(value: unknown, field: string, unit: TimeUnit = 'auto'): number | undefined {
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  const text = typeof value === 'string' ? value.trim() : value;
  if (typeof text === 'number' || (typeof text === 'string' && NUMBER.test(text))) {
    const n = Number(text);
    if (!Number.isFinite(n)) {
      throw new RecordProblem(`${field} is not a time`);
    }
    const as = unit !== 'auto' ? unit : Math.abs(n) >= 1e17 ? 'ns' : Math.abs(n) >= 1e14 ? 'us' : Math.abs(n) >= 1e11 ? 'ms' : 's';
    return n / { s: 1, ms: 1e3, us: 1e6, ns: 1e9 }[as];
  }
  const match = typeof text === 'string' ? ISO.exec(text) : null;
  if (match === null) {
    throw new RecordProblem(`${field} is not a time (give epoch seconds or milliseconds, or an ISO 8601 date and time)`);
  }
  const [, date, clock, fraction, zone] = match;
  const offset = zone === undefined || zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const whole = Date.parse(`${date}T${clock}${offset}`);
  if (!Number.isFinite(whole)) {
    throw new RecordProblem(`${field} is not a valid date and time`);
  }
  // Date.parse keeps milliseconds only; the fraction is added at full precision (traces log microseconds).
  return whole / 1000 + (fraction !== undefined ? Number(`0${fraction}`) : 0);
}

/** A CSV row's record. */
export function csvRecord(cells: readonly string[], columns: CsvColumns): TrafficRecord {
  const input = columns.input !== undefined ? tokenCount(cells[columns.input], 'the prompt tokens column') : undefined;
  const output = columns.output !== undefined ? tokenCount(cells[columns.output], 'the output tokens column') : undefined;
  const time = columns.time !== undefined ? arrivalTime(cells[columns.time.index], `the ${columns.time.name} column`, columns.time.unit) : undefined;
  return { input, output, time };
}

/** The shapes of a JSON line. */
export type JsonShape = 'openai' | 'bedrock' | 'aiperf';

/** How each shape is named in messages. */
export const SHAPE_NAMES: Readonly<Record<JsonShape, string>> = {
  openai: 'an OpenAI-style usage record',
  bedrock: 'an Amazon Bedrock invocation log record',
  aiperf: 'an AIPerf profile_export record',
};

/** A JSON object's record and shape; `failed` for a benchmark's failed request, `undefined` shape when it has no counts. */
export interface JsonRecord {
  readonly shape?: JsonShape;
  readonly record?: TrafficRecord;
  readonly failed?: boolean;
  /** The field the time was read from. */
  readonly timeField?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The counts and time of one JSON object (a JSON line, or an element of an array), whichever shape it has: AIPerf,
 * Amazon Bedrock, OpenAI-style `usage` (top level, or under `response` or `body` as gateways wrap it) or top-level
 * counts (LLMPerf's names, or `prompt_tokens` / `completion_tokens` as LiteLLM logs them).
 */
export function jsonRecord(value: unknown): JsonRecord {
  if (!isObject(value)) {
    throw new RecordProblem('is not a JSON object');
  }
  const metrics = value.metrics;
  const metadata = value.metadata;
  if (isObject(metrics) && isObject(metadata) && ('input_sequence_length' in metrics || 'error_isl' in metrics || 'request_start_ns' in metadata)) {
    if (value.error !== null && value.error !== undefined) {
      return { shape: 'aiperf', failed: true };
    }
    const read = (name: string) => (isObject(metrics[name]) ? (metrics[name] as Json).value : undefined);
    return {
      shape: 'aiperf',
      timeField: 'metadata.request_start_ns',
      record: {
        input: tokenCount(read('input_sequence_length'), 'metrics.input_sequence_length.value'),
        output: tokenCount(read('output_sequence_length'), 'metrics.output_sequence_length.value'),
        time: arrivalTime(metadata.request_start_ns, 'metadata.request_start_ns', 'ns'),
      },
    };
  }
  if (isObject(value.input) && isObject(value.output) && ('inputTokenCount' in value.input || 'outputTokenCount' in value.output)) {
    return {
      shape: 'bedrock',
      timeField: 'timestamp',
      record: {
        input: tokenCount(value.input.inputTokenCount, 'input.inputTokenCount'),
        output: tokenCount(value.output.outputTokenCount, 'output.outputTokenCount'),
        time: arrivalTime(value.timestamp, 'timestamp'),
      },
    };
  }
  const usage = [value.usage, isObject(value.response) ? value.response.usage : undefined, isObject(value.body) ? value.body.usage : undefined]
    .find(isObject);
  const counts: Json | undefined = usage ?? (['prompt_tokens', 'number_input_tokens', 'input_tokens'].some((k) => k in value) ? value : undefined);
  if (counts === undefined) {
    return {};
  }
  if ('error_code' in value && value.error_code !== null && value.error_code !== undefined && value.error_code !== '') {
    return { shape: 'openai', failed: true };
  }
  const where = usage !== undefined ? 'usage.' : '';
  const pick = (names: readonly string[]) => names.find((n) => counts[n] !== undefined && counts[n] !== null);
  const inputName = pick(['prompt_tokens', 'input_tokens', 'number_input_tokens']);
  const outputName = pick(['completion_tokens', 'output_tokens', 'number_output_tokens']);
  const timeName = ['created', 'timestamp', 'startTime', 'start_time', 'request_start_time', 'created_at'].find((n) => value[n] !== undefined && value[n] !== null);
  return {
    shape: 'openai',
    ...(timeName !== undefined ? { timeField: timeName } : {}),
    record: {
      input: inputName !== undefined ? tokenCount(counts[inputName], `${where}${inputName}`) : undefined,
      output: outputName !== undefined ? tokenCount(counts[outputName], `${where}${outputName}`) : undefined,
      time: timeName !== undefined ? arrivalTime(value[timeName], timeName) : undefined,
    },
  };
}

/** A whole JSON document's format and records, or undefined when it is none of the exports this reader knows. */
export function documentRecords(value: unknown): {
  readonly format: 'vllm-bench' | 'guidellm' | 'llmperf';
  readonly records: TrafficRecord[];
  readonly failed: number;
  readonly timeField?: string;
} | undefined {
  if (Array.isArray(value)) {
    const records: TrafficRecord[] = [];
    let failed = 0;
    let timeField: string | undefined;
    value.forEach((element, i) => {
      const read = withIndex(`element ${i}`, () => jsonRecord(element));
      timeField ??= read.timeField;
      if (read.failed) {
        failed++;
      } else if (read.record !== undefined) {
        records.push(read.record);
      }
    });
    return { format: 'llmperf', records, failed, ...(timeField !== undefined ? { timeField } : {}) };
  }
  if (!isObject(value)) {
    return undefined;
  }
  if (Array.isArray(value.input_lens)) {
    const inputs = value.input_lens;
    const outputs = value.output_lens;
    if (!Array.isArray(outputs) || outputs.length !== inputs.length) {
      throw new RecordProblem('has input_lens but no output_lens of the same length (save the result with --save-detailed)');
    }
    const starts = Array.isArray(value.start_times) && value.start_times.length === inputs.length ? value.start_times : undefined;
    const errors = Array.isArray(value.errors) && value.errors.length === inputs.length ? value.errors : undefined;
    const records: TrafficRecord[] = [];
    let failed = 0;
    inputs.forEach((input, i) => {
      // A failed request has an error message and no output (vLLM records 0 tokens for it).
      if (errors !== undefined && typeof errors[i] === 'string' && errors[i] !== '') {
        failed++;
        return;
      }
      records.push(withIndex(`request ${i}`, () => ({
        input: tokenCount(input, 'input_lens'),
        output: tokenCount(outputs[i], 'output_lens'),
        time: starts !== undefined ? arrivalTime(starts[i], 'start_times', 's') : undefined,
      })));
    });
    return { format: 'vllm-bench', records, failed, timeField: 'start_times' };
  }
  if (Array.isArray(value.benchmarks)) {
    const records: TrafficRecord[] = [];
    let failed = 0;
    value.benchmarks.forEach((benchmark, b) => {
      const requests = isObject(benchmark) && isObject(benchmark.requests) ? benchmark.requests : undefined;
      const successful = Array.isArray(requests?.successful) ? requests.successful : [];
      failed += (Array.isArray(requests?.errored) ? requests.errored.length : 0) + (Array.isArray(requests?.incomplete) ? requests.incomplete.length : 0);
      successful.forEach((r, i) => {
        records.push(withIndex(`benchmarks[${b}].requests.successful[${i}]`, () => {
          if (!isObject(r)) {
            throw new RecordProblem('is not a JSON object');
          }
          return {
            input: tokenCount(r.prompt_tokens, 'prompt_tokens'),
            output: tokenCount(r.output_tokens, 'output_tokens'),
            time: arrivalTime(r.request_start_time, 'request_start_time', 's'),
          };
        }));
      });
    });
    return { format: 'guidellm', records, failed, timeField: 'request_start_time' };
  }
  return undefined;
}

/** Runs `read`, prefixing a problem with where in the document it is. */
function withIndex<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof RecordProblem) {
      throw new RecordProblem(`${where}: ${e.message}`);
    }
    throw e;
  }
}

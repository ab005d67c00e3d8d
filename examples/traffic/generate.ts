/**
 * Writes the synthetic traffic files of this folder (no real user's data): `npx tsx examples/traffic/generate.ts`.
 * Seeded, so a run writes the same files.
 *
 * - `rag.csv`: a retrieval-augmented service, 2,000 requests: prompts of a question plus 4 to 8 retrieved chunks of
 *   about 700 tokens (mean near 4,400, p99 near 7,500), answers of a few hundred tokens, longer for longer contexts.
 *   Lengths only: arrivals are planned as Poisson.
 * - `gateway.jsonl`: an API gateway's log of an OpenAI-compatible chat endpoint, 500 responses with `usage` and
 *   `created` (whole seconds, as the API stamps them), Poisson arrivals at 2 requests/s.
 * - `bursty.csv`: 2,500 requests arriving in bursts (gaps drawn from a two-phase hyperexponential of SCV 4, ISO
 *   timestamps to the microsecond), chat-like lengths.
 * - `vllm-bench.json`: what `vllm bench serve --save-result --save-detailed` writes, 300 requests (3 failed), the
 *   fields this reader uses and the generated texts it never reads.
 */
import { writeFileSync } from 'fs';
import { join } from 'path';
import { normal, random } from '../../lib/planner/simulate';

const next = random(20240510);
const lognormal = (median: number, sigma: number) => Math.max(1, Math.round(median * Math.exp(sigma * normal(next))));
const exponential = (mean: number) => -Math.log(1 - next()) * mean;

function rag(): string {
  const rows = ['input_tokens,output_tokens'];
  for (let i = 0; i < 2000; i++) {
    const chunks = 4 + Math.floor(next() * 5);
    let input = lognormal(60, 0.8);
    for (let c = 0; c < chunks; c++) {
      input += lognormal(700, 0.25);
    }
    const output = lognormal(180 + input / 40, 0.5);
    rows.push(`${input},${output}`);
  }
  return `${rows.join('\n')}\n`;
}

function gateway(): string {
  const lines: string[] = [];
  let t = 1717000000;
  for (let i = 0; i < 500; i++) {
    t += exponential(0.5);
    const prompt = lognormal(700, 0.7);
    const completion = lognormal(150, 0.6);
    lines.push(JSON.stringify({
      id: `chatcmpl-${(i + 1).toString(16).padStart(6, '0')}`,
      object: 'chat.completion',
      created: Math.floor(t),
      model: 'llama-3.1-8b-instruct',
      choices: [{ index: 0, message: { role: 'assistant', content: '(answer text)' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    }));
  }
  return `${lines.join('\n')}\n`;
}

/** Gaps of mean 1 and SCV 4: a balanced-means two-phase hyperexponential. */
function burstyGap(): number {
  const scv = 4;
  const p = (1 + Math.sqrt((scv - 1) / (scv + 1))) / 2;
  return next() < p ? exponential(1 / (2 * p)) : exponential(1 / (2 * (1 - p)));
}

function bursty(): string {
  const rows = ['timestamp,input_tokens,output_tokens'];
  let t = Date.UTC(2024, 4, 10, 9, 0, 0) / 1000;
  for (let i = 0; i < 2500; i++) {
    t += burstyGap() / 4;
    const micro = Math.round(t * 1e6);
    const iso = new Date(Math.floor(micro / 1000)).toISOString().replace('Z', `${String(micro % 1000).padStart(3, '0')}Z`);
    rows.push(`${iso},${lognormal(600, 0.6)},${lognormal(120, 0.6)}`);
  }
  return `${rows.join('\n')}\n`;
}

function vllmBench(): string {
  const n = 300;
  const input: number[] = [];
  const output: number[] = [];
  const starts: number[] = [];
  const errors: string[] = [];
  let t = 1234.5;
  for (let i = 0; i < n; i++) {
    t += exponential(0.25);
    const failed = i % 100 === 37;
    input.push(lognormal(1000, 0.6));
    output.push(failed ? 0 : lognormal(200, 0.5));
    starts.push(Math.round(t * 1e6) / 1e6);
    errors.push(failed ? 'ServerDisconnectedError' : '');
  }
  return `${JSON.stringify({
    date: '20240510-090000',
    backend: 'vllm',
    num_prompts: n,
    request_rate: 4,
    burstiness: 1,
    completed: n - 3,
    failed: 3,
    input_lens: input,
    output_lens: output,
    start_times: starts,
    errors,
    generated_texts: output.map((o) => (o > 0 ? '(generated text)' : '')),
  })}\n`;
}

const here = __dirname;
writeFileSync(join(here, 'rag.csv'), rag());
writeFileSync(join(here, 'gateway.jsonl'), gateway());
writeFileSync(join(here, 'bursty.csv'), bursty());
writeFileSync(join(here, 'vllm-bench.json'), vllmBench());

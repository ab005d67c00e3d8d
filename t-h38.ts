import { runCli } from './bin/cli';
async function run(...argv: string[]) {
  let out = ''; let err = '';
  const t0 = process.cpuUsage();
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  const u = process.cpuUsage(t0);
  let extra = '';
  try { const d = JSON.parse(out); extra = JSON.stringify([d.request.arrivals?.scv, d.request.lengths?.input?.p99, d.request.maxModelLength, d.chosen?.generative?.capacityPerReplicaRps, d.chosen?.instanceType, d.chosen?.instanceCount]); } catch {}
  console.log(code, (u.user + u.system) / 1e6, 's cpu', argv.slice(2, 5).join(' '), extra, err.slice(0, 300));
}
async function main() {
  const base = ['--throughput', '2', '--ttft-p99', '3000', '--tpot-p99', '60', '--region', 'us-east-1', '--hosting', 'sagemaker', '--json', '--no-estimates'];
  await run('plan', '--model', 'llama-3.1-8b-instruct', '--lengths-from', 'examples/traffic/bursty.csv', ...base);
  await run('plan', '--model', 'llama-3.1-8b-instruct', '--input-tokens', '606', '--input-tokens-p99', '2458', '--output-tokens', '124', '--output-tokens-p99', '480', ...base);
  await run('plan', '--model', 'llama-3.1-8b-instruct', '--lengths-from', 'examples/traffic/bursty.csv', ...base.filter((a) => a !== '--no-estimates'));
}
main();

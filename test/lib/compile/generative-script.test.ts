/**
 * The generative compile host's script, as text (shellcheck), run by bash with stub `aws`, `docker`, `systemctl` and
 * `shutdown`, and its Python program run by /usr/bin/python3 with stand-ins for the two packages only the serving
 * image has (vllm, huggingface_hub): they record what they were called with. About 1 s in all.
 */
import { execFileSync, spawnSync } from 'child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { sha256Hex } from '../../../lib/compile';
import {
  parseGenerativeCompileSpec,
} from '../../../lib/compile/generative-spec';
import { parseGenerativeManifest } from '../../../lib/compile/generative-manifest';
import { renderGenerativeBootScript, type GenerativeBootScriptConfig } from '../../../lib/compile/generative-script';
import { stubCommand, tempDir } from '../../support/temp-dir';

const PROGRAM_PATH = join(__dirname, '..', '..', '..', 'serving', 'compile', 'compile_generative.py');
const GENERATIVE_COMPILE_PROGRAM = readFileSync(PROGRAM_PATH, 'utf8');

const IMAGE = `123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm-neuron@sha256:${'d'.repeat(64)}`;
const SECRET = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:hf-AbCdEf';
const HUB = { source: 'huggingface', repository: 'meta-llama/Llama-3.1-8B-Instruct', revision: '0e9e39f249a16976918f6564b8830bc894c89659' };
const spec = (weights: unknown) => parseGenerativeCompileSpec({
  model: "llama's 8b", weights, tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280, chip: 'inf2', neuronSdkVersion: '2.29.0',
}, 'spec');
const CONFIG: GenerativeBootScriptConfig = {
  region: 'us-east-1', bucket: 'artifacts', artifactPrefix: 'compiled/abc/', attemptId: 'att-1', instanceType: 'inf2.8xlarge',
  spec: spec(HUB), hash: 'abc', image: IMAGE, tokenSecretArn: SECRET, timeoutSeconds: 60,
  scriptS3Uri: 's3://assets/compile_generative.py', scriptSha256: sha256Hex(GENERATIVE_COMPILE_PROGRAM),
};

const dir = tempDir('cdk-inferentia-gen-');

/** Runs the script; `docker run` writes what the program would (or exits with `exit`), recording the token file it saw. */
function runBoot(config: GenerativeBootScriptConfig, exit: number) {
  const bin = join(dir(), 'bin');
  const work = join(dir(), 'work');
  const secrets = join(dir(), 'secrets');
  const dev = join(dir(), 'dev');
  for (const d of [bin, work, dev, join(dir(), 's3')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(dev, 'neuron0'), '');
  writeFileSync(join(dev, 'neuron1'), '');
  const calls = join(dir(), 'calls.log');
  stubCommand(bin, 'aws', `echo "aws $*" >>${JSON.stringify(calls)}
if [ "$1" = secretsmanager ]; then echo hf_secret_token_value; exit 0; fi
if [ "$1" = ecr ]; then echo password; exit 0; fi
if [ "$4" = s3://assets/compile_generative.py ]; then cp ${JSON.stringify(PROGRAM_PATH)} "$5"; exit 0; fi
args=(); for a in "$@"; do case "$a" in --*) ;; *) args+=("$a");; esac; done
src="\${args[2]}"; dst="\${args[3]}"
case "$dst" in s3://*) key="\${dst#s3://}"; mkdir -p "${dir()}/s3/$(dirname "$key")"; [ -f "$src" ] && cp "$src" "${dir()}/s3/$key";; esac
exit 0`);
  stubCommand(bin, 'docker', `echo "docker $*" >>${JSON.stringify(calls)}
# docker login reads the password from stdin; without reading it the piped aws could die of SIGPIPE (pipefail).
if [ "$1" = login ]; then cat >/dev/null; fi
if [ "$1" = run ]; then
  for a in "$@"; do case "$a" in *:/run/secrets/hf_token:ro) cat "\${a%%:*}" >${JSON.stringify(join(dir(), 'token-seen'))};; esac; done
  if [ ${exit} -eq 0 ]; then echo neff >"${work}/out/compiled/model.pt"; echo '{"hash":"abc"}' >"${work}/out/manifest.json"; echo w >"${work}/model/config.json"; fi
  exit ${exit}
fi
exit 0`);
  stubCommand(bin, 'shutdown', `echo "shutdown $*" >>${JSON.stringify(calls)}`);
  stubCommand(bin, 'systemctl', 'exit 0');
  const path = join(dir(), 'boot.sh');
  writeFileSync(path, renderGenerativeBootScript(config));
  const result = spawnSync('bash', [path], {
    env: { PATH: `${bin}:/usr/bin:/bin`, CDK_INFERENTIA_WORK: work, CDK_INFERENTIA_SECRETS: secrets, CDK_INFERENTIA_DEV: dev },
    encoding: 'utf8',
  });
  const seen = join(dir(), 'token-seen');
  return {
    status: result.status,
    calls: readFileSync(calls, 'utf8').trim().split('\n'),
    uploaded: (key: string) => readFileSync(join(dir(), 's3', config.bucket, key), 'utf8'),
    tokenSeen: existsSync(seen) ? readFileSync(seen, 'utf8').trim() : undefined,
    secretsLeft: existsSync(secrets),
    log: readFileSync(join(work, 'compile.log'), 'utf8'),
  };
}

describe('the generative boot script as text', () => {
  test.each([['Hub weights with a token', CONFIG], ['S3 weights', { ...CONFIG, spec: spec({ source: 's3', s3Uri: 's3://weights/llama/' }), tokenSecretArn: undefined }]])(
    'with %s it passes shellcheck', (_name, config) => {
      const path = join(dir(), 'boot.sh');
      writeFileSync(path, renderGenerativeBootScript(config));
      expect(() => execFileSync('shellcheck', ['--shell=bash', '--severity=style', path], { encoding: 'utf8' })).not.toThrow();
    });

  test('an image not pinned by digest, or a value that could leave its quotes, is refused', () => {
    expect(() => renderGenerativeBootScript({ ...CONFIG, image: 'public.ecr.aws/neuron/vllm:latest' })).toThrow(/image=.*not pinned by digest/);
    expect(() => renderGenerativeBootScript({ ...CONFIG, attemptId: 'a$(reboot)' })).toThrow(/attemptId/);
  });
});

describe('the generative boot script runs the compile in the serving image and uploads the manifest last', () => {
  test('Hub weights: the token goes to the container as a read-only file, never an argument or variable, and is removed', () => {
    const run = runBoot(CONFIG, 0);
    expect(run.status).toBe(0);
    expect(run.tokenSeen).toBe('hf_secret_token_value');
    expect(run.calls.join('\n')).not.toContain('hf_secret_token_value');
    expect(run.log).not.toContain('hf_secret_token_value');
    expect(run.secretsLeft).toBe(false);
    const dockerRun = run.calls.find((c) => c.startsWith('docker run'))!;
    expect(dockerRun).toContain('--device=');
    expect(dockerRun).toContain(`--entrypoint python3 ${IMAGE} /work/compile_generative.py`);
    // The private ECR image is logged in to in its own region, then pulled by digest.
    expect(run.calls).toContain('aws ecr get-login-password --region us-west-2');
    // compiled/ then model/ then manifest.json, then power off.
    const at = (s: string) => run.calls.findIndex((c) => c.includes(s));
    expect(at('s3://artifacts/compiled/abc/compiled/')).toBeLessThan(at('s3://artifacts/compiled/abc/model/'));
    expect(at('s3://artifacts/compiled/abc/model/')).toBeLessThan(at('s3://artifacts/compiled/abc/manifest.json'));
    expect(run.uploaded('compiled/abc/manifest.json')).toContain('abc');
    expect(run.calls[run.calls.length - 1]).toBe('shutdown -h now');
  });

  test('S3 weights are downloaded from their prefix, without the Hub token, and staged beside the artifacts (SageMaker mounts one prefix)', () => {
    const run = runBoot({ ...CONFIG, spec: spec({ source: 's3', s3Uri: 's3://weights/llama/' }), tokenSecretArn: undefined }, 0);
    expect(run.calls.some((c) => c.startsWith('aws s3 cp --only-show-errors --recursive s3://weights/llama/'))).toBe(true);
    expect(run.calls.some((c) => c.includes('secretsmanager'))).toBe(false);
    expect(run.calls.some((c) => c.includes('compiled/abc/model/'))).toBe(true);
  });

  test('a compile program that is not the one the job was made with is refused before the container runs', () => {
    const run = runBoot({ ...CONFIG, scriptSha256: sha256Hex('another program') }, 0);
    expect(run.calls.some((c) => c.startsWith('docker run'))).toBe(false);
    expect(JSON.parse(run.uploaded('compiled/abc/attempts/att-1/failure.json')).reason).toContain('SHA-256 differs');
  });

  test('exit 137 records out-of-memory naming the instance type, and no manifest is uploaded', () => {
    const run = runBoot(CONFIG, 137);
    const record = JSON.parse(run.uploaded('compiled/abc/attempts/att-1/failure.json'));
    expect(`${record.kind}: ${record.reason}`).toMatch(/^out-of-memory: .*more host RAM than inf2.8xlarge/);
    expect(run.calls.some((c) => c.endsWith('compiled/abc/manifest.json'))).toBe(false);
  });
});

describe('the compile program calls vLLM with the plan settings and writes a manifest lib reads back', () => {
  function runProgram(weights: unknown, withConfig = true, extra: Record<string, unknown> = {}) {
    const root = join(dir(), 'root');
    const pkgs = join(dir(), 'pkgs');
    for (const d of ['work', 'out', 'model', 'run/secrets']) mkdirSync(join(root, d), { recursive: true });
    mkdirSync(join(pkgs, 'vllm'), { recursive: true });
    mkdirSync(join(pkgs, 'huggingface_hub'), { recursive: true });
    const record = join(dir(), 'record.json');
    // Stand-ins: record their arguments; LLM(...) "compiles" into NEURON_COMPILED_ARTIFACTS as the plugin does.
    writeFileSync(join(pkgs, 'vllm', '__init__.py'), `import json, os
class SamplingParams:
    def __init__(self, **kw): self.kw = kw
class _Out:
    text = " Paris."
class _Result:
    outputs = [_Out()]
class _Config:
    dtype = "torch.bfloat16"
class _Engine:
    model_config = _Config()
class LLM:
    def __init__(self, **kw):
        json.dump({"llm": kw, "artifacts": os.environ["NEURON_COMPILED_ARTIFACTS"], "framework": os.environ["VLLM_NEURON_FRAMEWORK"]}, open(${JSON.stringify(record)}, "w"))
        os.makedirs(os.environ["NEURON_COMPILED_ARTIFACTS"], exist_ok=True)
        open(os.path.join(os.environ["NEURON_COMPILED_ARTIFACTS"], "model.pt"), "w").write("neff")
        self.llm_engine = _Engine()
    def generate(self, prompts, params):
        assert params.kw == {"temperature": 0.0, "max_tokens": 8}
        return [_Result()]
`);
    writeFileSync(join(pkgs, 'huggingface_hub', '__init__.py'), `import json, os
def snapshot_download(**kw):
    json.dump(kw, open(${JSON.stringify(join(dir(), 'hub.json'))}, "w"))
    ${withConfig ? 'open(os.path.join(kw["local_dir"], "config.json"), "w").write("{}")' : 'pass'}
`);
    writeFileSync(join(root, 'run/secrets/hf_token'), 'tok\n');
    writeFileSync(join(root, 'work/spec.json'), JSON.stringify({ ...spec(weights), ...extra }));
    writeFileSync(join(root, 'work/meta.json'), JSON.stringify({ hash: 'abc', instanceType: 'inf2.8xlarge', image: IMAGE, checkPrompt: 'The capital of France is' }));
    writeFileSync(join(root, 'work/compile_generative.py'), GENERATIVE_COMPILE_PROGRAM);
    const result = spawnSync('/usr/bin/python3', [join(root, 'work/compile_generative.py')], {
      env: { PATH: '/usr/bin:/bin', PYTHONPATH: pkgs, CDK_INFERENTIA_ROOT: root }, encoding: 'utf8',
    });
    return { root, result, record: () => JSON.parse(readFileSync(record, 'utf8')), hub: () => JSON.parse(readFileSync(join(dir(), 'hub.json'), 'utf8')) };
  }

  test('Hub weights at the pinned commit with the token; LLM(...) gets the engine settings of vllm serve', () => {
    const { root, result, record, hub } = runProgram(HUB);
    expect(result.stderr).toBe('');
    expect(hub()).toMatchObject({ repo_id: HUB.repository, revision: HUB.revision, token: 'tok', local_dir: `${root}/model` });
    expect(record()).toEqual({
      llm: { model: `${root}/model`, tensor_parallel_size: 2, max_num_seqs: 8, max_model_len: 1280, num_gpu_blocks_override: 8,
        enable_chunked_prefill: false, enable_prefix_caching: false, dtype: 'auto' },
      artifacts: `${root}/out/compiled`, framework: 'neuronx-distributed-inference',
    });
    const manifest = parseGenerativeManifest(JSON.parse(readFileSync(join(root, 'out/manifest.json'), 'utf8')), 'manifest');
    expect(manifest).toMatchObject({ tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280, dtype: 'bfloat16', stagedModel: 'model/',
      compiledArtifacts: 'compiled/', check: { output: ' Paris.' }, weights: HUB });
  });

  test('GIVEN a plan with FP8 and prefix caching WHEN compiled THEN LLM(...) gets their settings over the defaults and the manifest records them', () => {
    const engine = {
      additional_config: { override_neuron_config: { quantized: true, quantization_dtype: 'f8e4m3', is_prefix_caching: true, is_block_kv_layout: true } },
      enable_prefix_caching: true, block_size: 32, num_gpu_blocks_override: 320,
    };
    const { root, result, record } = runProgram(HUB, true, { engine });
    expect(result.stderr).toBe('');
    expect(record().llm).toEqual({ model: `${root}/model`, tensor_parallel_size: 2, max_num_seqs: 8, max_model_len: 1280, dtype: 'auto',
      enable_chunked_prefill: false, ...engine });
    const manifest = parseGenerativeManifest(JSON.parse(readFileSync(join(root, 'out/manifest.json'), 'utf8')), 'manifest');
    expect(manifest.engine).toEqual(engine);
  });

  test('weights without config.json fail with a record saying what layout is expected', () => {
    const { root, result } = runProgram(HUB, false);
    expect(result.status).toBe(1);
    expect(JSON.parse(readFileSync(join(root, 'out/failure.json'), 'utf8')).reason).toMatch(/no config.json: give the uncompressed Hugging Face layout/);
  });
});

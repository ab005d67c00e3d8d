import { execFileSync, spawnSync } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { parseCompileSpec, renderBootScript, sha256Hex, type BootScriptConfig } from '../../../lib/compile';
import { bertCompileSpec } from '../../support/compile-spec';
import { stubCommand, tempDir } from '../../support/temp-dir';

const SCRIPT = '# the compile script as the job uploaded it';
const SPEC = parseCompileSpec(bertCompileSpec({
  model: "bert's base",
  source: { s3Uri: 's3://models-bucket/bert/', format: 'huggingface' },
  batchSizes: [1, 8],
}), 'spec.json');

const CONFIG: BootScriptConfig = {
  region: 'us-east-1',
  bucket: 'artifact-bucket',
  artifactPrefix: 'compiled/abc123/',
  attemptId: 'attempt-1',
  instanceType: 'inf2.xlarge',
  scriptS3Uri: 's3://asset-bucket/compile.py',
  scriptSha256: sha256Hex(SCRIPT),
  spec: SPEC,
  hash: 'abc123',
  timeoutSeconds: 30,
};

const dir = tempDir('cdk-inferentia-boot-');

/**
 * Runs the rendered script with stub `aws` (records each call, serves the compile script, keeps uploads under
 * $dir/s3), `python3` (the compile script: exits with $STUB_EXIT, writing artifacts and a manifest on 0) and
 * `shutdown` (records the call).
 */
function runBoot(config: BootScriptConfig, stubExit: number, stubRecord = ''): { log: string; calls: string[]; uploaded: (key: string) => string; status: number | null } {
  const bin = join(dir(), 'bin');
  execFileSync('mkdir', ['-p', bin, join(dir(), 's3'), join(dir(), 'work')]);
  const calls = join(dir(), 'calls.log');
  stubCommand(bin, 'aws', `echo "aws $*" >>${JSON.stringify(calls)}
args=(); skip=0; for a in "$@"; do if [ $skip = 1 ]; then skip=0; continue; fi; case "$a" in --exclude) skip=1;; --*) ;; *) args+=("$a");; esac; done
src="\${args[2]}"; dst="\${args[3]}"
if [ "$src" = ${JSON.stringify(config.scriptS3Uri)} ]; then printf '%s' ${JSON.stringify(SCRIPT)} >"$dst"; exit 0; fi
case "$dst" in s3://*) key="\${dst#s3://}"; mkdir -p "${dir()}/s3/$(dirname "$key")"; if [ -f "$src" ]; then cp "$src" "${dir()}/s3/$key"; fi;; *) mkdir -p "$dst";; esac
exit 0`);
  stubCommand(bin, 'python3', `echo "python3 $*" >>${JSON.stringify(calls)}
out=""; while [ $# -gt 0 ]; do [ "$1" = --out ] && out="$2"; shift; done
if [ -n "\${STUB_RECORD:-}" ]; then printf '%s' "$STUB_RECORD" >"$out/failure.json"; fi
if [ "$STUB_EXIT" -eq 0 ]; then echo model >"$out/model-b1.pt"; echo model >"$out/model-b8.pt"; echo '{"hash":"abc123"}' >"$out/manifest.json"; fi
exit "$STUB_EXIT"`);
  stubCommand(bin, 'shutdown', `echo "shutdown $*" >>${JSON.stringify(calls)}`);
  const scriptPath = join(dir(), 'boot.sh');
  writeFileSync(scriptPath, renderBootScript(config));
  const result = spawnSync('bash', [scriptPath], {
    env: { PATH: `${bin}:/usr/bin:/bin`, CDK_INFERENTIA_WORK: join(dir(), 'work'), STUB_EXIT: String(stubExit), STUB_RECORD: stubRecord },
    encoding: 'utf8',
  });
  return {
    log: (() => { try { return readFileSync(join(dir(), "work", "compile.log"), "utf8"); } catch { return ""; } })(),
    calls: readFileSync(calls, 'utf8').trim().split('\n'),
    uploaded: (key) => readFileSync(join(dir(), 's3', config.bucket, key), 'utf8'),
    status: result.status,
  };
}

describe('the compile host boot script passes shellcheck', () => {
  test('the rendered script has no shellcheck finding, quotes included', () => {
    // GIVEN a script rendered from a spec whose model name holds a quote
    const path = join(dir(), 'boot.sh');
    writeFileSync(path, renderBootScript(CONFIG));
    // WHEN shellcheck reads it THEN it finds nothing (execFileSync throws on a finding)
    expect(() => execFileSync('shellcheck', ['--shell=bash', '--severity=style', path], { encoding: 'utf8' })).not.toThrow();
  });

  test('a value that could break out of its quotes is refused before rendering', () => {
    // GIVEN an attempt id with a shell metacharacter WHEN rendered THEN it throws naming the field
    expect(() => renderBootScript({ ...CONFIG, attemptId: 'a$(reboot)' })).toThrow(/attemptId/);
  });
});

describe('the boot script uploads the artifacts before the manifest and powers off', () => {
  test('on success every artifact is uploaded, then the manifest, and the instance shuts down', () => {
    // WHEN the compile script succeeds
    const { calls, uploaded, status } = runBoot(CONFIG, 0);
    // THEN the artifacts upload strictly before the manifest
    const artifacts = calls.findIndex((c) => c.includes('--recursive') && c.includes('s3://artifact-bucket/compiled/abc123/'));
    const manifest = calls.findIndex((c) => c.endsWith('s3://artifact-bucket/compiled/abc123/manifest.json'));
    expect(artifacts).toBeGreaterThan(-1);
    expect(manifest).toBeGreaterThan(artifacts);
    expect(uploaded('compiled/abc123/manifest.json')).toContain('abc123');
    // AND the compile script got the spec, hash and instance type, and the host powers off at the end
    expect(calls.find((c) => c.startsWith('python3'))).toContain('--hash abc123');
    expect(calls.find((c) => c.startsWith('python3'))).toContain('--instance-type inf2.xlarge');
    expect(calls[calls.length - 1]).toBe('shutdown -h now');
    expect(calls[0]).toMatch(/^shutdown -h \+\d+$/);
    expect(status).toBe(0);
  });
});

describe('the boot script records why a compile failed', () => {
  test('exit 137 (the compiler killed for memory) records out-of-memory naming the instance type, and no manifest', () => {
    // WHEN the compile script is SIGKILLed
    const { calls, uploaded } = runBoot(CONFIG, 137);
    // THEN a failure record says out of memory on inf2.xlarge, and no manifest was uploaded
    const record = JSON.parse(uploaded('compiled/abc123/attempts/attempt-1/failure.json'));
    expect(record).toMatchObject({ kind: 'out-of-memory', exitCode: 137, instanceType: 'inf2.xlarge' });
    expect(record.reason).toContain('needs more RAM than inf2.xlarge has');
    expect(calls.some((c) => c.includes('manifest.json') && c.includes('s3://'))).toBe(false);
    expect(calls[calls.length - 1]).toBe('shutdown -h now');
  });

  test("the compile script's own failure record is uploaded as is", () => {
    // GIVEN a compile script that records an unsupported operator and exits 3
    const own = JSON.stringify({ kind: 'unsupported-operators', reason: 'neuronx-cc does not support aten::foo', operators: ['aten::foo'] });
    const { uploaded } = runBoot(CONFIG, 3, own);
    // THEN its record reaches S3 unchanged
    expect(JSON.parse(uploaded('compiled/abc123/attempts/attempt-1/failure.json'))).toEqual(JSON.parse(own));
  });

  test('any other exit records an error naming the exit code and where the log is', () => {
    // WHEN the compile script exits 3 without a record of its own
    const { uploaded } = runBoot(CONFIG, 3);
    // THEN the record names the code and the log's location, and the log is uploaded
    const record = JSON.parse(uploaded('compiled/abc123/attempts/attempt-1/failure.json'));
    expect(record).toMatchObject({ kind: 'error', exitCode: 3 });
    expect(record.reason).toContain('attempts/attempt-1/compile.log');
    expect(uploaded('compiled/abc123/attempts/attempt-1/compile.log')).toBeDefined();
  });

  test('a script that is not the one the job was made with is refused before anything runs', () => {
    // GIVEN a checksum that does not match the served script
    const { calls, uploaded } = runBoot({ ...CONFIG, scriptSha256: sha256Hex('another script') }, 0);
    // THEN nothing is compiled and the record says the script differs
    expect(calls.some((c) => c.startsWith('python3'))).toBe(false);
    expect(JSON.parse(uploaded('compiled/abc123/attempts/attempt-1/failure.json')).reason).toContain('SHA-256 differs');
  });
});

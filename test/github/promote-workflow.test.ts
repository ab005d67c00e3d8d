import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { parseEnvironments } from '../../lib/environments';

const ROOT = path.join(__dirname, '..', '..');

interface Job {
  readonly needs?: string | string[];
  readonly environment?: string;
  readonly steps: { readonly uses?: string; readonly run?: string; readonly with?: Record<string, string> }[];
}

describe('the GitHub Actions promotion workflow promotes every environment in order', () => {
  // GIVEN the workflow and the example environments it promotes through
  const workflow = parse(fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'promote.yml'), 'utf8')) as {
    permissions: Record<string, string>;
    jobs: Record<string, Job>;
  };
  // The jobs run `cdk` and `promote` without --config: both read the config cdk.json's context names.
  const file = (JSON.parse(fs.readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')) as { context: { environments: string } }).context.environments;
  const config = parseEnvironments(JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')), { source: file });
  const names = config.environments.map((e) => e.name);

  test('THEN it asks for an OIDC token and nothing else it does not need', () => {
    expect(workflow.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
  });

  test('THEN there is one job per environment, each in its GitHub environment, chained by needs after the tests', () => {
    expect(names).toEqual(['dev', 'staging', 'prod']);
    let previous = 'test';
    for (const name of names) {
      const job = workflow.jobs[name];
      expect(job).toBeDefined();
      expect(job.environment).toBe(name);
      expect(job.needs).toBe(previous);
      previous = name;
    }
  });

  test('THEN each job assumes its role through OIDC, promotes from the previous environment before deploying the endpoint, and checks its gate', () => {
    names.forEach((name, i) => {
      const steps = workflow.jobs[name].steps;
      const credentials = steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'));
      expect(credentials?.with?.['role-to-assume']).toBe('${{ vars.AWS_ROLE_ARN }}');
      const runs = steps.map((s) => s.run ?? '').filter((r) => r !== '');
      const gate = runs.findIndex((r) => r.includes(`promote --from ${name} --check`));
      expect(gate).toBe(runs.length - 1);
      if (i > 0) {
        const promote = runs.findIndex((r) => r.includes(`promote --from ${names[i - 1]} --to ${name}`));
        const release = runs.findIndex((r) => r.includes(`cdk deploy ${name}/Release`));
        const inference = runs.findIndex((r) => r.includes(`cdk deploy ${name}/Inference`));
        expect(release).toBeGreaterThanOrEqual(0);
        expect([release < promote, promote < inference]).toEqual([true, true]);
      }
    });
  });
});

/**
 * What the consumer app's synthesized template must show (scripts/consumer-test.ts runs the app and calls these): its
 * own resources kept, each of its own alarms in the rollback set of the hosting it was added to, every hosting alarm
 * paging its topic, and the smoke benchmark's code the package's shipped bundle.
 */
import * as fs from 'fs';
import * as path from 'path';

/** The parts of a CloudFormation template the checks read. */
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/** Throws `message` unless `condition` holds. */
export function check(condition: boolean, message: string): void {
  if (!condition) {
    throw new Error(message);
  }
}

/**
 * The consumer's own alarms, each added with `addRollbackAlarm` to one hosting, and the resource whose deployment
 * config must then hold it in its rollback alarms: the bert endpoint's, the Llama inference component's.
 */
const OWN_ROLLBACK_ALARMS = [
  { alarm: 'SearchErrors', holder: 'Bert', type: 'AWS::SageMaker::Endpoint' },
  { alarm: 'AnswersDownvoted', holder: 'Assistant', type: 'AWS::SageMaker::InferenceComponent' },
];

export function checkAssembly(dir: string, outdir: string, template: Template): void {
  const types = Object.values(template.Resources).map((r) => r.Type);
  const count = (type: string) => types.filter((t) => t === type).length;
  const ids = Object.keys(template.Resources);
  check(count('AWS::SageMaker::Endpoint') === 2, `${outdir}: expected two SageMaker endpoints (bert, Llama), found ${count('AWS::SageMaker::Endpoint')}`);
  check(count('AWS::SageMaker::InferenceComponent') === 1,
    `${outdir}: expected the Llama endpoint's one inference component, found ${count('AWS::SageMaker::InferenceComponent')}`);
  check(count('AWS::EC2::VPC') === 1, `${outdir}: expected the consumer's VPC only, found ${count('AWS::EC2::VPC')}`);
  check(count('AWS::SNS::Topic') === 1, `${outdir}: expected the consumer's alarm topic, found ${count('AWS::SNS::Topic')}`);
  check(ids.some((id) => id.startsWith('Models') && template.Resources[id].Type === 'AWS::S3::Bucket'),
    `${outdir}: the consumer's Models bucket is missing`);
  // Each of the consumer's own alarms rolls back the hosting it was added to (and no other), and every other alarm
  // in those rollback sets, the hostings' own, pages the consumer's topic.
  const alarms = ids.filter((id) => template.Resources[id].Type === 'AWS::CloudWatch::Alarm');
  const pages = (id: string) => JSON.stringify(template.Resources[id].Properties?.AlarmActions ?? []).includes('"Ref":"Alarms');
  const own = OWN_ROLLBACK_ALARMS.map(({ alarm, holder, type }) => {
    const id = alarms.find((a) => a.startsWith(alarm));
    check(id !== undefined, `${outdir}: the consumer's own alarm ${alarm} is missing`);
    const holderId = ids.find((h) => h.startsWith(holder) && template.Resources[h].Type === type);
    check(holderId !== undefined, `${outdir}: no ${type} of ${holder}`);
    return { id: id as string, holderId: holderId as string };
  });
  for (const { id, holderId } of own) {
    const rollback = JSON.stringify(template.Resources[holderId].Properties?.DeploymentConfig ?? {});
    const members = [...rollback.matchAll(/"AlarmName":\{"Ref":"(\w+)"\}/g)].map((m) => m[1]);
    check(members.includes(id), `${outdir}: the consumer's alarm ${id} is not among ${holderId}'s rollback alarms: ${rollback}`);
    const elsewhere = own.filter((o) => o.id !== id && members.includes(o.id)).map((o) => o.id);
    check(elsewhere.length === 0, `${outdir}: ${holderId} rolls back on ${elsewhere.join(', ')}, added to another hosting`);
    const hostings = members.filter((m) => !own.some((o) => o.id === m));
    check(hostings.length > 0, `${outdir}: ${holderId} has no rollback alarms of its own: ${rollback}`);
    const silent = hostings.filter((m) => !alarms.includes(m) || !pages(m));
    check(silent.length === 0, `${outdir}: ${holderId}'s rollback alarms ${silent.join(', ')} do not page the consumer's topic`);
  }
  const unpaged = alarms.filter((id) => !own.some((o) => o.id === id) && !pages(id));
  check(unpaged.length === 0, `${outdir}: the hostings' alarms ${unpaged.join(', ')} do not page the consumer's topic`);

  // The smoke benchmark's code is the handler bundle shipped in the package, not a bundle made here.
  const shipped = fs.readFileSync(path.join(dir, 'node_modules', 'cdk-inferentia', 'dist', 'handlers',
    'smoke-benchmark', 'index.js'));
  const assets = fs.readdirSync(path.join(dir, outdir)).filter((f) => f.startsWith('asset.'))
    .map((f) => path.join(dir, outdir, f, 'index.js')).filter((f) => fs.existsSync(f));
  check(assets.some((f) => fs.readFileSync(f).equals(shipped)),
    `${outdir}: no Lambda asset is the package's dist/handlers/smoke-benchmark/index.js`);
}


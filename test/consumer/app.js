// The stack of app.ts in plain JavaScript, synthesized with `node app.js` and without the policy checks: the package
// must not need them, nor TypeScript, to synthesize.
const { App, RemovalPolicy, Stack } = require('aws-cdk-lib');
const cloudwatch = require('aws-cdk-lib/aws-cloudwatch');
const actions = require('aws-cdk-lib/aws-cloudwatch-actions');
const ec2 = require('aws-cdk-lib/aws-ec2');
const kms = require('aws-cdk-lib/aws-kms');
const s3 = require('aws-cdk-lib/aws-s3');
const sns = require('aws-cdk-lib/aws-sns');
const { ModelData, ModelImage, NeuronSageMakerEndpoint, plan, requireProfile } = require('cdk-inferentia');

class SearchStack extends Stack {
  constructor(scope, id, props) {
    super(scope, id, props);

    // Zones named, so `cdk synth` needs no AWS call to look them up.
    const vpc = new ec2.Vpc(this, 'Vpc', { availabilityZones: ['us-east-1a', 'us-east-1b'], natGateways: 1 });
    vpc.addFlowLog('FlowLog');
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const models = new s3.Bucket(this, 'Models', {
      encryption: s3.BucketEncryption.KMS,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      serverAccessLogsBucket: accessLogs,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const alarms = new sns.Topic(this, 'Alarms', { enforceSSL: true, masterKey: new kms.Key(this, 'AlarmsKey', {
      enableKeyRotation: true,
    }) });

    const endpoint = new NeuronSageMakerEndpoint(this, 'Bert', {
      plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 },
        { region: 'us-east-1', hosting: 'sagemaker' }),
      image: ModelImage.fromNeuronDlc({
        tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04',
        digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
      }),
      modelData: ModelData.fromBucket(models, 'bert-base-uncased/v1/'),
      vpc,
      smokeBenchmark: {
        request: { body: JSON.stringify({ inputs: ['The quick brown fox'] }), contentType: 'application/json' },
        expect: { kind: 'regex', pattern: '"outputs"' },
      },
    });

    for (const alarm of endpoint.rollbackAlarms) {
      alarm.addAlarmAction(new actions.SnsAction(alarms));
    }
    endpoint.addRollbackAlarm(new cloudwatch.Alarm(this, 'SearchErrors', {
      metric: new cloudwatch.Metric({ namespace: 'Search', metricName: 'FailedSearches', statistic: 'Sum' }),
      threshold: 10,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    }));
  }
}

const app = new App();
// The region only: `cdk deploy` takes the account from your credentials, and `cdk synth` needs none.
new SearchStack(app, 'Search', { env: { region: 'us-east-1' } });

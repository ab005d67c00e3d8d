import { App, RemovalPolicy, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  applyPolicyChecks, findGenerativeProfile, ModelData, ModelImage, NeuronGenerativeEndpoint, NeuronSageMakerEndpoint,
  plan, planGenerative, requireProfile, VLLM_DLC_PINS,
} from 'cdk-inferentia';

class SearchStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps) {
    super(scope, id, props);

    // What the app already has: a network, a bucket the build pipeline uploads compiled models to, an alarm topic.
    // Zones named, so `cdk synth` needs no AWS call to look them up.
    const vpc = new ec2.Vpc(this, 'Vpc', { availabilityZones: ['us-east-1a', 'us-east-1b'], natGateways: 1 });
    vpc.addFlowLog('FlowLog');
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(accessLogs).acknowledge({ id: 'AwsSolutions-S1', reason: 'Receives the access logs of Models' });
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

    // The endpoint, sized by the planner for 2,000 requests/s at p99 10 ms on a Neuron DLC's stock toolkit, which
    // runs host work and device call one after the other (the model server, ModelImage.fromServer, needs fewer).
    const endpoint = new NeuronSageMakerEndpoint(this, 'Bert', {
      plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 },
        { region: 'us-east-1', hosting: 'sagemaker', server: 'neuron-dlc' }),
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

    // An assistant that answers over the results: Llama 3.1 8B Instruct planned in tokens for 2 requests/s, served
    // by vLLM on Neuron from the weights and compiled artifacts the pipeline puts in the same bucket.
    const llama = findGenerativeProfile('llama-3.1-8b-instruct');
    if (llama === undefined) {
      throw new Error('cdk-inferentia has no llama-3.1-8b-instruct profile');
    }
    const assistant = new NeuronGenerativeEndpoint(this, 'Assistant', {
      plan: planGenerative(llama, {
        requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
      }, { region: 'us-east-1', hosting: 'sagemaker' }),
      image: ModelImage.fromNeuronVllm({
        tag: VLLM_DLC_PINS.inf2Trn1.tag,
        digest: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
      }),
      weights: ModelData.fromBucket(models, 'llama-3.1-8b-instruct/v1/'),
      compiledArtifactsPath: 'neuron-compiled/',
      servedModelName: 'llama-3.1-8b-instruct',
      vpc,
    });

    // Page the team when a rollback alarm fires, and let the app's own alarms roll a bad deployment back too.
    for (const alarm of [...endpoint.rollbackAlarms, ...assistant.rollbackAlarms]) {
      alarm.addAlarmAction(new actions.SnsAction(alarms));
    }
    endpoint.addRollbackAlarm(new cloudwatch.Alarm(this, 'SearchErrors', {
      metric: new cloudwatch.Metric({ namespace: 'Search', metricName: 'FailedSearches', statistic: 'Sum' }),
      threshold: 10,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    }));
    assistant.addRollbackAlarm(new cloudwatch.Alarm(this, 'AnswersDownvoted', {
      metric: new cloudwatch.Metric({ namespace: 'Search', metricName: 'DownvotedAnswers', statistic: 'Sum' }),
      threshold: 20,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    }));
  }
}

const app = new App();
// The region only: `cdk deploy` takes the account from your credentials, and `cdk synth` needs none.
new SearchStack(app, 'Search', { env: { region: 'us-east-1' } });
// cdk-nag AwsSolutions and the Neuron rules: any finding fails the synth.
applyPolicyChecks(app);

import { Duration, Size } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { vllmServeCommand, VllmReplicaConfig } from '../../../lib/generative/engine-config';
import type { EngineMetricsTarget } from '../../../lib/generative/engine-image';
import type { ModelImageConfig } from '../../image/model-image';
import { within } from '../../private/construct-errors';
import { ARTIFACTS_DIRECTORY, DOWNLOAD_MEMORY_MIB, GenerativeEcsLayout, MODEL_MOUNT, WEIGHTS_DIRECTORY } from './generative-ecs-layout';

/** Where a task downloads the model from: `s3://bucket/prefix/` URIs (tokens allowed). */
export interface GenerativeModelSource {
  readonly weightsUri: string;
  /** @default - no compiled artifacts */
  readonly artifactsUri?: string;
}

/** Inputs of {@link GenerativeEcsReplica}. */
export interface GenerativeEcsReplicaProps {
  readonly engine: VllmReplicaConfig;
  readonly layout: GenerativeEcsLayout;
  readonly cluster: ecs.ICluster;
  readonly capacityProviderName: string;
  /** Binds the engine image for a task's execution role. */
  readonly bindImage: (grantee: iam.IGrantable) => ModelImageConfig;
  /** Where the engine's metrics go, with an image that exports them. */
  readonly metrics: EngineMetricsTarget;
  readonly downloadImage?: ecs.ContainerImage;
  readonly model: GenerativeModelSource;
  /** Added to the engine's environment, over the rendered one. */
  readonly environment: Record<string, string>;
  readonly region: string;
  readonly containerPort: number;
  readonly logGroup: logs.ILogGroup;
  readonly vpcSubnets: ec2.SubnetSelection;
  readonly securityGroup: ec2.ISecurityGroup;
  readonly graceSeconds: number;
}

/**
 * One replica slot of every instance: a task definition that maps exactly the `/dev/neuronN` devices of the slot's
 * tensor-parallel group, and a service that runs at most one such task per instance.
 *
 * ECS has no Neuron device resource to schedule on for EC2 capacity: `resourceRequirements` of type `NeuronDevice`
 * takes only `ALL` and exists only on Managed Instances (Amazon ECS Developer Guide, "Amazon ECS task definitions for
 * AWS Neuron machine learning workloads": https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs-inference.html;
 * API Reference, `ResourceRequirement`). Devices are therefore mapped by hand (`linuxParameters.devices`, "Manual
 * Neuron device specification"), and two tasks never map the same slot on one instance because each slot is its own
 * service with the `distinctInstance` placement constraint, while the CPU and memory each task reserves (the
 * instance's over its replicas) leave room for exactly one task of every slot.
 */
export class GenerativeEcsReplica extends Construct {
  readonly taskDefinition: ecs.Ec2TaskDefinition;
  readonly engine: ecs.ContainerDefinition;
  readonly download: ecs.ContainerDefinition;
  readonly service: ecs.Ec2Service;
  /** Whether the image is the cdk-inferentia vLLM image, which exports the engine's metrics. */
  readonly vllmImage: boolean;
  /** The engine's health route. */
  readonly healthCheckPath: string;
  /** The engine container's image, command and environment: what a redeploy changes (for the deployment fingerprint). */
  readonly engineRun: { readonly imageUri: string; readonly command: readonly string[]; readonly environment: Readonly<Record<string, string>> };

  constructor(scope: Construct, id: string, props: GenerativeEcsReplicaProps) {
    super(scope, id);
    const { engine, layout, model } = props;
    this.taskDefinition = new ecs.Ec2TaskDefinition(this, 'TaskDefinition', { networkMode: ecs.NetworkMode.AWS_VPC });
    // A task-scoped Docker volume on the instance's root disk: the download writes it, the engine reads it, and
    // it goes with the task.
    this.taskDefinition.addVolume({ name: 'model' });
    const bound = props.bindImage(this.taskDefinition.obtainExecutionRole());
    const image = ecs.ContainerImage.fromRegistry(bound.imageUri);
    // The cdk-inferentia vLLM image (ModelImage.fromNeuronVllm) takes the arguments as JSON in its environment and
    // exports the engine's metrics; any other image runs `vllm serve` as the command.
    const engineRun = bound.vllm === undefined
      ? { command: vllmServeCommand(engine), environment: { ...engine.environment } }
      : { command: [...bound.vllm.command], environment: within(this, () => bound.vllm!.environment(engine, props.metrics)) };
    this.vllmImage = bound.vllm !== undefined;
    this.engineRun = { imageUri: bound.imageUri, command: engineRun.command, environment: { ...engineRun.environment, ...props.environment } };
    // vLLM answers GET /health with 200 once the engine is up.
    this.healthCheckPath = bound.vllm?.healthCheckPath ?? '/health';
    const logging = (prefix: string): ecs.LogDriver => ecs.LogDrivers.awsLogs({
      logGroup: props.logGroup,
      streamPrefix: `${prefix}-${engine.index}`,
      mode: ecs.AwsLogDriverMode.NON_BLOCKING,
      maxBufferSize: Size.mebibytes(25),
    });

    this.download = this.taskDefinition.addContainer('Download', {
      image: props.downloadImage ?? image,
      essential: false,
      entryPoint: ['/bin/sh', '-c'],
      command: [downloadScript(model.artifactsUri !== undefined)],
      environment: {
        WEIGHTS_URI: model.weightsUri,
        ...(model.artifactsUri === undefined ? {} : { ARTIFACTS_URI: model.artifactsUri }),
        AWS_REGION: props.region,
        AWS_DEFAULT_REGION: props.region,
      },
      memoryReservationMiB: DOWNLOAD_MEMORY_MIB,
      cpu: 256,
      logging: logging('download'),
    });
    this.download.addMountPoints({ containerPath: MODEL_MOUNT, sourceVolume: 'model', readOnly: false });

    const linuxParameters = new ecs.LinuxParameters(this, 'LinuxParameters', {
      // vLLM's worker processes exchange tensors through shared memory; Docker's default /dev/shm is 64 MiB
      // (vLLM docs, "Using Docker": --ipc=host or --shm-size): an eighth of the task's memory, at most 16 GiB.
      sharedMemorySize: Math.min(16_384, Math.floor(layout.memoryMiBPerTask / 8)),
    });
    // Exactly this replica's devices, at their host paths, so NEURON_RT_VISIBLE_CORES keeps the plan's core numbers.
    linuxParameters.addDevices(...engine.devices.map((path) => ({
      hostPath: path,
      containerPath: path,
      permissions: [ecs.DevicePermission.READ, ecs.DevicePermission.WRITE],
    })));
    this.engine = this.taskDefinition.addContainer('Engine', {
      image,
      essential: true,
      command: [...this.engineRun.command],
      environment: { ...this.engineRun.environment },
      linuxParameters,
      cpu: Math.max(0, layout.cpuUnitsPerTask - 256),
      memoryReservationMiB: layout.memoryMiBPerTask - DOWNLOAD_MEMORY_MIB,
      portMappings: [{ containerPort: props.containerPort, protocol: ecs.Protocol.TCP, name: 'http' }],
      logging: logging('engine'),
      // ECS waits up to this long after SIGTERM before SIGKILL (its maximum); streams have drained by then, since
      // the task left the target group after the deregistration delay.
      stopTimeout: Duration.seconds(120),
    });
    // Writable: without compiled artifacts vLLM compiles into the model directory.
    this.engine.addMountPoints({ containerPath: MODEL_MOUNT, sourceVolume: 'model', readOnly: false });
    this.engine.addContainerDependencies({ container: this.download, condition: ecs.ContainerDependencyCondition.SUCCESS });

    this.service = new ecs.Ec2Service(this, 'Service', {
      cluster: props.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: layout.instanceCount,
      capacityProviderStrategies: [{ capacityProvider: props.capacityProviderName, weight: 1 }],
      // One task of this slot per instance: its devices are then never mapped twice.
      placementConstraints: [ecs.PlacementConstraint.distinctInstances()],
      placementStrategies: [ecs.PlacementStrategy.spreadAcross(ecs.BuiltInAttributes.AVAILABILITY_ZONE)],
      vpcSubnets: props.vpcSubnets,
      securityGroups: [props.securityGroup],
      // New tasks start before old ones stop; with one task of a slot per instance they wait for instances managed
      // scaling adds, so a deploy costs time, never capacity.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      healthCheckGracePeriod: Duration.seconds(props.graceSeconds),
      enableECSManagedTags: true,
      propagateTags: ecs.PropagatedTagSource.SERVICE,
    });
  }
}

/** The download: weights, then the compiled artifacts, from S3 into the task volume; a failure stops the task. */
function downloadScript(artifacts: boolean): string {
  const lines = [
    'set -eu',
    `aws s3 sync --only-show-errors --no-progress "\${WEIGHTS_URI%/}/" ${WEIGHTS_DIRECTORY}/`,
    `test -f ${WEIGHTS_DIRECTORY}/config.json || { echo "no config.json under $WEIGHTS_URI" >&2; exit 1; }`,
  ];
  if (artifacts) {
    lines.push(`aws s3 sync --only-show-errors --no-progress "\${ARTIFACTS_URI%/}/" ${ARTIFACTS_DIRECTORY}/`);
  }
  return lines.join('\n');
}

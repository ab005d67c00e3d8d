import { CfnOutput, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { GenerativePlan } from '../../../lib/generative/types';
import type { ModelImage } from '../../image/model-image';
import { NeuronGenerativeCompileJob } from '../neuron-generative-compile-job';
import type { GenerativeWeights } from '../neuron-generative-compile-job';

/** The weights a generative stack compiles, or a function of the stack returning them (for secrets it references). */
export type StackGenerativeWeights = GenerativeWeights | ((stack: Stack) => GenerativeWeights);

/** What a generative stack gives {@link compileGenerativeInStack}. */
export interface GenerativeStackCompileOptions {
  /** The stack's plan: the compile is for its tensor-parallel degree, sequences, length and chip. */
  readonly plan: GenerativePlan;
  /** The serving image; the compile runs in it. */
  readonly image: ModelImage;
  readonly weights: StackGenerativeWeights;
  /** @default - a two-zone VPC with one NAT gateway and an S3 gateway endpoint */
  readonly compileVpc?: ec2.IVpc;
  /** Where the artifacts land. @default - the job's default (the model data bucket) */
  readonly compileBucket?: s3.IBucket;
  /** Key prefix of the artifacts. @default - the job's default ('compiled/') */
  readonly compilePrefix?: string;
}

/** A generative stack's compiles: the plan's, and those of the fallback pools that need their own. */
export interface GenerativeStackCompile {
  /** The compile for the stack's plan (id `Compile`). */
  readonly job: NeuronGenerativeCompileJob;
  /**
   * One compile per fallback pool of the plan that loads no earlier pool's artifacts (another chip family, or other
   * engine settings), id `Pool<priority>Compile`, of the same weights in the same VPC; empty without such pools.
   */
  readonly poolJobs: readonly NeuronGenerativeCompileJob[];
}

/**
 * Compiles a generative stack's model in its deploy: the compile VPC (unless given), the `NeuronGenerativeCompileJob`
 * (id `Compile`) for the stack's plan and one per fallback pool that needs its own, and the `CompiledArtifacts`
 * output a stage promotes. The generative SageMaker stack and its ECS twin both call it, so the two compile the same
 * way for their own plans.
 */
export function compileGenerativeInStack(stack: Stack, options: GenerativeStackCompileOptions): GenerativeStackCompile {
  const vpc = options.compileVpc ?? new ec2.Vpc(stack, 'CompileVpc', {
    maxAzs: 2,
    // One NAT gateway: the compile host runs once per changed plan, for under an hour, and needs the image registry
    // and, for Hub weights, huggingface.co.
    natGateways: 1,
    // The compile host reads and writes S3 through the gateway, not the NAT gateway's per-GB charge.
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    flowLogs: { Rejected: { trafficType: ec2.FlowLogTrafficType.REJECT } },
  });
  const weights = typeof options.weights === 'function' ? options.weights(stack) : options.weights;
  const job = new NeuronGenerativeCompileJob(stack, 'Compile', {
    plan: options.plan, weights, image: options.image, vpc, bucket: options.compileBucket, prefix: options.compilePrefix,
  });
  new CfnOutput(stack, 'CompiledArtifacts', { description: 'Staged weights and compiled artifacts (promote this prefix)', value: job.s3Uri });
  const poolJobs = (options.plan.fallbacks ?? []).filter((pool) => pool.sharesCompiledModelWith === undefined).map((pool) =>
    new NeuronGenerativeCompileJob(stack, `Pool${pool.priority}Compile`, {
      plan: pool.plan, weights, image: options.image, vpc, bucket: options.compileBucket, prefix: options.compilePrefix,
    }));
  return { job, poolJobs };
}

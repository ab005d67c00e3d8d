import { Duration } from 'aws-cdk-lib';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';

/*
 * Limits from the SageMaker API reference (BlueGreenUpdatePolicy, TrafficRoutingConfig, RollingUpdatePolicy):
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_BlueGreenUpdatePolicy.html
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_TrafficRoutingConfig.html
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_RollingUpdatePolicy.html
 */
const WAIT_MAX_SECONDS = 3600;
const EXECUTION_MIN_SECONDS = 600;
const EXECUTION_MAX_SECONDS = 28_800;

/**
 * Time SageMaker needs to bring one Neuron instance into service on top of the container timeouts: instance
 * launch and the pull of a multi-GB Neuron DLC image. An estimate, used only to size the deployment's default
 * maximum execution time generously enough that a healthy deployment never times out.
 */
const INSTANCE_AND_IMAGE_SECONDS = 1800;

/** How a deployment shifts traffic or replaces capacity. */
export type EndpointDeploymentKind = 'CANARY' | 'LINEAR' | 'ALL_AT_ONCE' | 'ROLLING';

/** Options every blue/green deployment takes. */
export interface BlueGreenDeploymentOptions {
  /**
   * How long the old (blue) fleet is kept after all traffic reached the new one; the rollback alarms keep
   * watching during this final baking period and a breach shifts traffic back at once.
   *
   * @default Duration.minutes(10)
   */
  readonly terminationWait?: Duration;

  /**
   * Time limit for the whole deployment, 600-28800 seconds; it must cover provisioning the new fleet and
   * every wait.
   *
   * @default - the container download and startup timeouts, 30 minutes for instance launch and image pull,
   * and every wait and the termination wait, at least 600 s
   */
  readonly maximumExecutionTimeout?: Duration;
}

/** Options of {@link EndpointDeployment.canary}. */
export interface CanaryDeploymentOptions extends BlueGreenDeploymentOptions {
  /**
   * Instances of the new fleet that take traffic first. SageMaker requires at most half the fleet.
   *
   * @default - 10 % of the planned instance count, at least 1
   */
  readonly canaryInstances?: number;

  /**
   * How long the canary serves traffic under the rollback alarms before the rest shifts.
   *
   * @default Duration.minutes(10)
   */
  readonly waitInterval?: Duration;
}

/** Options of {@link EndpointDeployment.linear}. */
export interface LinearDeploymentOptions extends BlueGreenDeploymentOptions {
  /**
   * Instances of the new fleet that take traffic at each step. SageMaker requires 10-50 % of the fleet.
   *
   * @default - 20 % of the planned instance count, within the 10-50 % SageMaker allows
   */
  readonly stepInstances?: number;

  /**
   * How long each step serves traffic under the rollback alarms before the next step.
   *
   * @default Duration.minutes(5)
   */
  readonly waitInterval?: Duration;
}

/** Options of {@link EndpointDeployment.rolling}. */
export interface RollingDeploymentOptions {
  /**
   * Instances replaced per step. SageMaker requires 5-50 % of the fleet.
   *
   * @default - 20 % of the planned instance count, within the 5-50 % SageMaker allows
   */
  readonly batchInstances?: number;

  /**
   * How long each replaced batch serves traffic under the rollback alarms before the next batch.
   *
   * @default Duration.minutes(5)
   */
  readonly waitInterval?: Duration;

  /**
   * Instances restored per step when rolling back.
   *
   * @default - the whole old fleet at once: the fastest recovery
   */
  readonly rollbackBatchInstances?: number;

  /**
   * Time limit for the whole deployment, 600-28800 seconds.
   *
   * @default - per batch: the container download and startup timeouts, 30 minutes for instance launch and image
   * pull, and the wait; at least 600 s
   */
  readonly maximumExecutionTimeout?: Duration;
}

/** What a deployment policy needs to know about the endpoint to render itself. @internal */
export interface DeploymentRenderContext {
  /** Planned (minimum) instance count of the variant. */
  readonly instanceCount: number;
  /** Names of the rollback alarms (may be tokens). */
  readonly alarmNames: readonly string[];
  /** Model data download plus container startup health check timeout, in seconds. */
  readonly containerSeconds: number;
}

/** A rendered deployment policy, or the problems that prevent it. @internal */
export interface RenderedDeployment {
  readonly config?: sagemaker.CfnEndpoint.DeploymentConfigProperty;
  readonly problems: string[];
}

/**
 * How SageMaker moves an endpoint to a new configuration: blue/green with canary, linear or all-at-once traffic
 * shifting, or a rolling replacement, each with automatic rollback on the endpoint's alarms.
 *
 * Blue/green needs quota for twice the instance count while both fleets run; rolling needs only one batch more.
 * SageMaker ignores guardrails on ml.inf1 (it always shifts all at once without baking).
 *
 * @example
 * EndpointDeployment.canary({ canaryInstances: 1, waitInterval: Duration.minutes(15) });
 * EndpointDeployment.rolling({ batchInstances: 2 });
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-guardrails.html
 */
export class EndpointDeployment {
  /**
   * Blue/green: a small part of the new fleet takes traffic first, then the rest. The default policy.
   */
  static canary(options: CanaryDeploymentOptions = {}): EndpointDeployment {
    return new EndpointDeployment('CANARY', options);
  }

  /** Blue/green: traffic moves to the new fleet in equal steps. */
  static linear(options: LinearDeploymentOptions = {}): EndpointDeployment {
    return new EndpointDeployment('LINEAR', options);
  }

  /**
   * Blue/green: all traffic moves at once, then the old fleet waits `terminationWait` under the rollback alarms.
   * Works with a single instance, unlike canary, linear and rolling.
   */
  static allAtOnce(options: BlueGreenDeploymentOptions = {}): EndpointDeployment {
    return new EndpointDeployment('ALL_AT_ONCE', options);
  }

  /** Rolling: the fleet is replaced in batches; needs less spare quota than blue/green. */
  static rolling(options: RollingDeploymentOptions = {}): EndpointDeployment {
    return new EndpointDeployment('ROLLING', options);
  }

  /** The traffic shifting or replacement strategy. */
  readonly kind: EndpointDeploymentKind;

  private readonly options: CanaryDeploymentOptions & LinearDeploymentOptions & RollingDeploymentOptions;

  private constructor(kind: EndpointDeploymentKind, options: object) {
    this.kind = kind;
    this.options = options;
  }

  /**
   * The `DeploymentConfig` of `AWS::SageMaker::Endpoint` for an endpoint of `context.instanceCount` instances,
   * or the problems with the options, each naming the option, the value and the fix.
   *
   * @internal
   */
  _render(context: DeploymentRenderContext): RenderedDeployment {
    const problems: string[] = [];
    const o = this.options;
    const n = context.instanceCount;
    const autoRollbackConfiguration = context.alarmNames.length > 0
      ? { alarms: context.alarmNames.map((alarmName) => ({ alarmName })) }
      : undefined;
    const seconds = (name: string, d: Duration | undefined, dflt: number, min: number, max: number): number => {
      if (d === undefined) {
        return dflt;
      }
      const s = d.toSeconds();
      if (!Number.isInteger(s) || s < min || s > max) {
        problems.push(`deployment ${this.kind} ${name}=${d.toHumanString()} is outside ${min}-${max} seconds `
          + `SageMaker accepts; pass a whole number of seconds in that range`);
      }
      return s;
    };
    const needFleet = (option: string, value: number, minFraction: number, allowed: string): void => {
      const lo = Math.max(1, Math.ceil(n * minFraction));
      const hi = Math.floor(n / 2);
      if (hi < 1) {
        problems.push(`deployment=${this.kind} needs at least 2 instances (SageMaker allows ${allowed} of the fleet per `
          + `step) but the endpoint has instanceCount=${n}; use EndpointDeployment.allAtOnce(), or plan with `
          + 'minInstances >= 2');
      } else if (!Number.isInteger(value) || value < lo || value > hi) {
        problems.push(`deployment ${this.kind} ${option}=${value} is outside ${allowed} of the ${n}-instance fleet; `
          + `pass a whole number from ${lo} to ${hi}`);
      }
    };

    if (this.kind === 'ROLLING') {
      const batch = o.batchInstances ?? clamp(Math.ceil(n * 0.2), Math.max(1, Math.ceil(n * 0.05)), Math.floor(n / 2));
      needFleet('batchInstances', batch, 0.05, '5-50 %');
      if (o.rollbackBatchInstances !== undefined
        && (!Number.isInteger(o.rollbackBatchInstances) || o.rollbackBatchInstances < 1)) {
        problems.push(`deployment ROLLING rollbackBatchInstances=${o.rollbackBatchInstances} must be a whole number `
          + 'of at least 1, or unset to restore the whole old fleet at once');
      }
      const wait = seconds('waitInterval', o.waitInterval, 300, 0, WAIT_MAX_SECONDS);
      const steps = Math.ceil(n / Math.max(1, batch));
      const execution = seconds('maximumExecutionTimeout', o.maximumExecutionTimeout,
        clamp(steps * (context.containerSeconds + INSTANCE_AND_IMAGE_SECONDS + wait), EXECUTION_MIN_SECONDS,
          EXECUTION_MAX_SECONDS), EXECUTION_MIN_SECONDS, EXECUTION_MAX_SECONDS);
      return {
        problems,
        config: {
          autoRollbackConfiguration,
          rollingUpdatePolicy: {
            maximumBatchSize: { type: 'INSTANCE_COUNT', value: batch },
            waitIntervalInSeconds: wait,
            maximumExecutionTimeoutInSeconds: execution,
            rollbackMaximumBatchSize: o.rollbackBatchInstances === undefined
              ? undefined
              : { type: 'INSTANCE_COUNT', value: o.rollbackBatchInstances },
          },
        },
      };
    }

    const terminationWait = seconds('terminationWait', o.terminationWait, 600, 0, WAIT_MAX_SECONDS);
    let trafficRoutingConfiguration: sagemaker.CfnEndpoint.TrafficRoutingConfigProperty;
    let waits = 0;
    if (this.kind === 'CANARY') {
      const canary = o.canaryInstances ?? Math.max(1, Math.floor(n * 0.1));
      needFleet('canaryInstances', canary, 0, 'at most 50 %');
      const wait = seconds('waitInterval', o.waitInterval, 600, 0, WAIT_MAX_SECONDS);
      waits = wait;
      trafficRoutingConfiguration = {
        type: 'CANARY',
        canarySize: { type: 'INSTANCE_COUNT', value: canary },
        waitIntervalInSeconds: wait,
      };
    } else if (this.kind === 'LINEAR') {
      const step = o.stepInstances ?? clamp(Math.ceil(n * 0.2), Math.max(1, Math.ceil(n * 0.1)), Math.floor(n / 2));
      needFleet('stepInstances', step, 0.1, '10-50 %');
      const wait = seconds('waitInterval', o.waitInterval, 300, 0, WAIT_MAX_SECONDS);
      waits = wait * Math.ceil(n / Math.max(1, step));
      trafficRoutingConfiguration = {
        type: 'LINEAR',
        linearStepSize: { type: 'INSTANCE_COUNT', value: step },
        waitIntervalInSeconds: wait,
      };
    } else {
      trafficRoutingConfiguration = { type: 'ALL_AT_ONCE', waitIntervalInSeconds: 0 };
    }
    const execution = seconds('maximumExecutionTimeout', o.maximumExecutionTimeout,
      clamp(context.containerSeconds + INSTANCE_AND_IMAGE_SECONDS + waits + terminationWait, EXECUTION_MIN_SECONDS,
        EXECUTION_MAX_SECONDS), EXECUTION_MIN_SECONDS, EXECUTION_MAX_SECONDS);
    if (o.maximumExecutionTimeout !== undefined && execution <= waits + terminationWait) {
      problems.push(`deployment ${this.kind} maximumExecutionTimeout=${o.maximumExecutionTimeout.toHumanString()} `
        + `does not exceed the waits (${waits + terminationWait} s); SageMaker would time out every deployment. `
        + 'Raise it or shorten the waits');
    }
    return {
      problems,
      config: {
        autoRollbackConfiguration,
        blueGreenUpdatePolicy: {
          trafficRoutingConfiguration,
          terminationWaitInSeconds: terminationWait,
          maximumExecutionTimeoutInSeconds: execution,
        },
      },
    };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

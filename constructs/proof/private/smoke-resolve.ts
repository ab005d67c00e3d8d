/**
 * The smoke benchmark's props resolved before any resource exists: the load shape, the capacity proof, the timeout
 * and the request, each recording every problem it finds.
 */
import { Duration, Stack, Token } from 'aws-cdk-lib';
import { Construct, type IConstruct } from 'constructs';
import { compileAnswerCheck } from '../../../lib/bench/answer';
import { defaultMaxInFlight } from '../../../lib/bench/in-flight';
import type { LoadMode, StopCondition } from '../../../lib/bench/types';
import type { Plan } from '../../../lib/planner/types';
import { requiredFunctionTimeoutMs, type RunShape } from '../../../lib/smoke/budget';
import { isPoisson } from '../../../lib/traffic/arrivals';
import { capacityStageMs, DEFAULT_ACCOUNT_CONCURRENCY, MAX_FAN_OUT, PER_WORKER_RPS, planBasis, type CapacityConfig } from '../../../lib/smoke/capacity';
import { MAX_IN_FLIGHT } from '../../../lib/smoke/config';
import type { CapacityProofOptions, SmokeBenchmarkProps, SmokeRequest } from '../smoke-benchmark-props';

/** The props of a single-call benchmark: its plan, if any, is a single-call `Plan`. */
export type SingleCallProps = Omit<SmokeBenchmarkProps, 'plan'> & { readonly plan?: Plan };
import { BoundTarget } from '../smoke-target';
import { predictedP99At } from '../smoke-thresholds';
import { MAX_SMOKE_TIMEOUT, capacityGates, proofRate, LAMBDA_ENVIRONMENT_BYTES, TOKEN_VALUE_BYTES, DEFAULT_DURATION, DEFAULT_WARMUP, DEFAULT_REQUEST_TIMEOUT, DEFAULT_CONCURRENCY_WITHOUT_PLAN, MAX_DEFAULT_CONCURRENCY } from './smoke-defaults';

export function resolveLoad(props: SingleCallProps, target: BoundTarget, problems: string[]): RunShape {
  const load = props.load ?? {};
  const timeoutMs = (load.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT).toMilliseconds();
  const warmupMs = (load.warmup ?? DEFAULT_WARMUP).toMilliseconds();
  if (load.concurrency !== undefined && load.rateRps !== undefined) {
    problems.push(
      `load.concurrency=${load.concurrency} and load.rateRps=${load.rateRps} are both set; give concurrency for a ` +
        'closed loop or rateRps for a fixed arrival rate, not both',
    );
  }
  if (load.duration !== undefined && load.requests !== undefined) {
    problems.push(
      `load.duration=${load.duration.toSeconds()} s and load.requests=${load.requests} are both set; give one`,
    );
  }
  if (timeoutMs <= 0) {
    problems.push(`load.requestTimeout=${timeoutMs} ms must be positive, e.g. Duration.seconds(10)`);
  }
  if (target.kind === 'sagemaker' && timeoutMs > 60_000) {
    problems.push(
      `load.requestTimeout=${timeoutMs / 1000} s is above the 60 s SageMaker InvokeEndpoint allows a response; ` +
        'use at most Duration.seconds(60)',
    );
  }

  let mode: LoadMode;
  if (load.rateRps !== undefined) {
    if (!(load.rateRps > 0) || !Number.isFinite(load.rateRps)) {
      problems.push(`load.rateRps=${load.rateRps} must be a positive number of requests per second, e.g. 20`);
    }
    mode = {
      kind: 'open',
      rateRps: load.rateRps,
      maxInFlight: Math.min(MAX_IN_FLIGHT, defaultMaxInFlight(Math.max(load.rateRps, 1), Math.max(timeoutMs, 1))),
    };
  } else {
    const concurrency = load.concurrency ?? defaultConcurrency(props.plan);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_IN_FLIGHT) {
      problems.push(
        `load.concurrency=${concurrency} must be a whole number from 1 to ${MAX_IN_FLIGHT}; a smoke run proves the ` +
          'deployment, it does not load-test it',
      );
    }
    mode = { kind: 'closed', concurrency };
  }

  let stop: StopCondition;
  if (load.requests !== undefined) {
    if (!Number.isInteger(load.requests) || load.requests < 1) {
      problems.push(`load.requests=${load.requests} must be a whole number >= 1, e.g. 200`);
    }
    stop = { requests: load.requests };
  } else {
    const durationMs = (load.duration ?? DEFAULT_DURATION).toMilliseconds();
    if (durationMs <= 0) {
      problems.push(`load.duration=${durationMs} ms must be positive, e.g. Duration.seconds(30)`);
    }
    stop = { durationMs };
  }
  return { mode, stop, warmupMs, timeoutMs };
}


/** The single-call capacity proof from `capacityProof` and the plan it proves (undefined when a rule failed). */
export function resolveCapacity(options: CapacityProofOptions, plan: Plan | undefined, shape: RunShape, allowance: Duration, problems: string[]):
CapacityConfig | undefined {
  const count = problems.length;
  const rateRps = proofRate(options, plan?.capacityRps, { what: 'planned capacity', example: 500 }, problems);
  const p99MaxMs =
    options.p99Max?.toMilliseconds() ??
    (plan !== undefined ? round2(predictedP99At(plan, rateRps) + allowance.toMilliseconds()) : undefined);
  if (p99MaxMs === undefined) {
    problems.push('capacityProof.p99Max is needed without a plan, e.g. Duration.millis(50)');
  } else if (!(p99MaxMs > 0)) {
    problems.push(`capacityProof.p99Max=${p99MaxMs} ms must be positive`);
  }
  const serverP99MaxMs =
    options.serverP99Max?.toMilliseconds() ??
    (plan !== undefined && plan.serving === 'batching' ? predictedP99At(plan, rateRps) : undefined);
  if (options.streamsPerWorker !== undefined) {
    problems.push(
      `capacityProof.streamsPerWorker=${options.streamsPerWorker} applies to generative plans (streamed requests); ` +
        'a single-call proof is sized by capacityProof.perWorkerRps; remove streamsPerWorker',
    );
  }
  const perWorkerRps = options.perWorkerRps ?? PER_WORKER_RPS;
  if (!(perWorkerRps > 0) || !Number.isFinite(perWorkerRps)) {
    problems.push(`capacityProof.perWorkerRps=${perWorkerRps} must be a positive number, e.g. ${PER_WORKER_RPS}`);
  }
  const workers = Math.max(1, Math.ceil(rateRps / perWorkerRps));
  const fanOutLimit = Math.min(MAX_FAN_OUT, DEFAULT_ACCOUNT_CONCURRENCY);
  if (Number.isFinite(workers) && workers > fanOutLimit) {
    problems.push(
      `capacityProof.rateRps=${rateRps} needs ${workers} load workers at ${perWorkerRps} requests/s each, above the ` +
        `${fanOutLimit} a proof may fan out to (Lambda's default account concurrency is ${DEFAULT_ACCOUNT_CONCURRENCY}, ` +
        'shared with every other function); lower capacityProof.fraction or rateRps, or prove one instance\'s ' +
        'capacity on a smaller staging fleet',
    );
  }
  const { rateShare, maxErrorRate, durationMs, warmupMs } = capacityGates(options, problems);
  if (problems.length > count || p99MaxMs === undefined) {
    return undefined;
  }
  const perWorker = rateRps / workers;
  return {
    rateRps,
    workers,
    durationMs,
    warmupMs,
    timeoutMs: shape.timeoutMs,
    maxInFlightPerWorker: Math.min(MAX_IN_FLIGHT, defaultMaxInFlight(perWorker, shape.timeoutMs)),
    predicted: { rateRps: plan?.capacityRps ?? rateRps, p99Ms: plan !== undefined ? predictedP99At(plan, rateRps) : p99MaxMs },
    // The plan's bursty arrivals, when it was made for them: the proof sends the traffic the plan assumed.
    ...(plan?.targets.arrivals !== undefined && !isPoisson(plan.targets.arrivals) ? { arrivals: plan.targets.arrivals } : {}),
    thresholds: {
      minRateRps: round2(rateShare * rateRps),
      p99MaxMs,
      ...(serverP99MaxMs !== undefined ? { serverP99MaxMs } : {}),
      maxErrorRate,
    },
    // For the report's calibration record: what the proof measured against (cdk-inferentia calibrate).
    ...(plan !== undefined ? { plan: planBasis(plan) } : {}),
  };
}

export function defaultConcurrency(plan: Plan | undefined): number {
  if (plan === undefined) {
    return DEFAULT_CONCURRENCY_WITHOUT_PLAN;
  }
  return Math.max(1, Math.min(MAX_DEFAULT_CONCURRENCY, plan.instanceCount * plan.processesPerInstance));
}

export function resolveTimeout(
  timeout: Duration | undefined,
  shape: RunShape,
  problems: string[],
  capacity?: CapacityConfig,
): Duration {
  const smokeMs = requiredFunctionTimeoutMs(shape);
  const capacityMs = capacity !== undefined ? capacityStageMs(capacity) : 0;
  const requiredMs = smokeMs === undefined ? undefined : smokeMs + capacityMs;
  const maxMs = MAX_SMOKE_TIMEOUT.toMilliseconds();
  const needs = (ms: number): string =>
    `${describe(ms)} (startup 15 s + load.warmup ${describe(shape.warmupMs)} + load.duration ` +
    `${describe('durationMs' in shape.stop ? shape.stop.durationMs : 0)} + one load.requestTimeout ` +
    `${describe(shape.timeoutMs)} + 7 s to stop and write the report` +
    (capacity !== undefined
      ? ` + the capacity proof ${describe(capacityMs)}: 15 s to start the workers + capacityProof.warmup ` +
        `${describe(capacity.warmupMs)} + capacityProof.duration ${describe(capacity.durationMs)} + one request ` +
        `timeout + 5 s to return)`
      : ')');
  const tooLong =
    'the Trigger provider Lambda stops at 15 minutes and may spend 1 minute on IAM propagation retries, and a ' +
    'provider that dies leaves CloudFormation waiting an hour; runs longer than this need the custom-resource ' +
    'Provider framework, not supported yet';

  if (timeout === undefined) {
    if (requiredMs === undefined) {
      return Duration.minutes(5).plus(Duration.millis(capacityMs));
    }
    if (requiredMs > maxMs) {
      problems.push(
        `${capacity !== undefined ? 'capacityProof.duration' : 'load.duration'}: the run needs ${needs(requiredMs)}, ` +
          `above the ${describe(maxMs)} a smoke benchmark may run (${tooLong}); shorten ` +
          `${capacity !== undefined ? 'capacityProof.duration, capacityProof.warmup, ' : ''}load.duration or load.warmup`,
      );
      return MAX_SMOKE_TIMEOUT;
    }
    return Duration.seconds(Math.min(maxMs / 1000, Math.max(120, Math.ceil(requiredMs / 1000) + 60)));
  }

  const chosenMs = timeout.toMilliseconds();
  if (chosenMs > maxMs) {
    problems.push(
      `timeout=${describe(chosenMs)} is above ${describe(maxMs)}, the longest a smoke benchmark may run (${tooLong}); ` +
        'use at most Duration.minutes(13) and shorten load.duration or load.warmup to fit',
    );
  } else if (requiredMs !== undefined && chosenMs < requiredMs) {
    problems.push(
      `timeout=${describe(chosenMs)} is shorter than the run needs: ${needs(requiredMs)}; raise timeout to at least ` +
        `Duration.seconds(${Math.ceil(requiredMs / 1000)}) or shorten load.duration`,
    );
  }
  return timeout;
}

export function validateRequest(props: SingleCallProps & { readonly request: SmokeRequest }, target: BoundTarget, problems: string[]): void {
  if (Token.isUnresolved(props.request.body)) {
    problems.push('request.body is a CloudFormation token; give the golden request as a literal string');
  } else if (target.kind === 'sagemaker' && props.request.body === '') {
    problems.push('request.body is empty; InvokeEndpoint needs the payload the model expects, e.g. {"inputs":"hello"}');
  }
  if (props.expectStatus !== undefined) {
    if (!Number.isInteger(props.expectStatus) || props.expectStatus < 100 || props.expectStatus > 599) {
      problems.push(`expectStatus=${props.expectStatus} must be an HTTP status between 100 and 599`);
    } else if (target.kind === 'sagemaker' && props.expectStatus !== 200) {
      problems.push(
        `expectStatus=${props.expectStatus}: SageMaker answers 200 on success and wraps any other model status in ` +
          'a ModelError (424); leave it unset',
      );
    }
  }
  if (props.expect !== undefined) {
    try {
      compileAnswerCheck(props.expect);
    } catch (err) {
      problems.push(`expect: ${(err as Error).message}`);
    }
  }
}

export function environmentSizeProblems(environment: Record<string, string>): string[] {
  const bytes = Object.entries(environment).reduce(
    (sum, [key, value]) =>
      sum + Buffer.byteLength(key) + (Token.isUnresolved(value) ? TOKEN_VALUE_BYTES : Buffer.byteLength(value)),
    // NODE_OPTIONS, set by the house function.
    Buffer.byteLength('NODE_OPTIONS--enable-source-maps'),
  );
  if (bytes <= LAMBDA_ENVIRONMENT_BYTES) {
    return [];
  }
  return [
    `request.body and expect take ${bytes} bytes of the Lambda environment with the other settings, above Lambda's ` +
      `${LAMBDA_ENVIRONMENT_BYTES}-byte limit; use a smaller golden request (a short input exercises the model as well ` +
      'as a long one) or a json-path check instead of the whole expected answer',
  ];
}

/**
 * The constructs the Trigger should run after, without the branch that contains the benchmark itself: an endpoint
 * that creates its own smoke benchmark is a target and an ancestor at once, and depending on an ancestor would make
 * the Trigger depend on itself.
 */
export function dependencyTargets(targets: readonly IConstruct[], self: IConstruct): IConstruct[] {
  const result: IConstruct[] = [];
  for (const target of targets) {
    if (!self.node.scopes.includes(target)) {
      result.push(target);
      continue;
    }
    const expand = (scope: IConstruct): void => {
      for (const child of scope.node.children) {
        if (child === self) {
          continue;
        }
        if (self.node.scopes.includes(child)) {
          expand(child);
        } else {
          result.push(child);
        }
      }
    };
    expand(target);
  }
  return result;
}

/**
 * The text cdk-nag shows for a resource in its finding ids (`<Logical.Arn>/prefix/*`), to acknowledge exactly that
 * finding. Mirrors `flattenCfnReference` of cdk-nag 3.0.2 (`lib/utils/flatten-cfn-reference.js`), which the package
 * does not export.
 */
export function nagResourceId(scope: Construct, value: string): string {
  const visit = (node: unknown): string => {
    if (node === undefined) {
      return '';
    }
    if (typeof node === 'string') {
      return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    }
    const record = node as Record<string, unknown>;
    if (record['Fn::Join']) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(visit).join(delimiter);
    }
    if (record['Fn::Sub']) {
      return visit(record['Fn::Sub']);
    }
    if (record['Fn::GetAtt']) {
      const [resource, attribute] = record['Fn::GetAtt'] as [unknown, unknown];
      return `<${visit(resource)}.${visit(attribute)}>`;
    }
    if (record['Fn::ImportValue']) {
      return visit(record['Fn::ImportValue']);
    }
    if (record.Ref) {
      return `<${visit(record.Ref)}>`;
    }
    return JSON.stringify(node);
  };
  return visit(Stack.of(scope).resolve(value));
}

export function describe(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const minutes = ms / 60_000;
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  return `${Math.round(ms / 100) / 10} s`;
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

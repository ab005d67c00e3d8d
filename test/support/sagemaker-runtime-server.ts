/**
 * A local server speaking the SageMaker Runtime `InvokeEndpoint` protocol (`POST /endpoints/{name}/invocations`,
 * rest-json errors), so tests run the real `@aws-sdk/client-sagemaker-runtime` client against it.
 *
 * Error shapes follow the service model as shipped in `@aws-sdk/client-sagemaker-runtime` 3.1162
 * (`dist-cjs/index.js`, `ModelError$`: httpError 424, members Message, OriginalStatusCode, OriginalMessage,
 * LogStreamArn; `ModelNotReadyException$`: 429; `ValidationError$`: 400; `ServiceUnavailable$`: 503) and the
 * `x-amzn-ErrorType` header the rest-json protocol reads the error name from.
 */
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startHttpServer, type ReceivedRequest, type ServerAction, type TestServer } from './http-server';

/** One `InvokeEndpoint` call as the server received it. */
export interface ReceivedInvocation extends ReceivedRequest {
  /** Decoded from the path. */
  readonly endpointName: string;
  /** `X-Amzn-SageMaker-Target-Variant`, when sent. */
  readonly targetVariant?: string;
}

/** What the fake endpoint does with one invocation. */
export type InvocationAction =
  /** The model answered. */
  | {
      readonly kind: 'ok';
      readonly body: string;
      /** @default 'application/json' */
      readonly contentType?: string;
      /** @default 0 */
      readonly delayMs?: number;
      /** The container's `X-Amzn-SageMaker-Custom-Attributes`, returned as `CustomAttributes`. @default - none */
      readonly customAttributes?: string;
    }
  /** The container answered non-2xx: SageMaker wraps it in a ModelError (HTTP 424). */
  | { readonly kind: 'model-error'; readonly originalStatusCode: number; readonly originalMessage: string }
  /** Throttling: HTTP 429 with the given error type. */
  | { readonly kind: 'throttle'; readonly errorType?: 'ThrottlingException' | 'ModelNotReadyException' }
  /** Any other service error, e.g. `{ status: 503, errorType: 'ServiceUnavailable' }`. */
  | { readonly kind: 'service-error'; readonly status: number; readonly errorType: string; readonly message: string }
  | { readonly kind: 'stall' }
  | { readonly kind: 'reset' };

/** Picks the action for each invocation. */
export type InvocationBehaviour = (invocation: ReceivedInvocation) => InvocationAction | Promise<InvocationAction>;

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const INVOCATIONS_PATH = /^\/endpoints\/([^/]+)\/invocations$/;

/** A running fake SageMaker Runtime. */
export interface SageMakerRuntimeTestServer extends TestServer {
  /** Every well-formed invocation received, in arrival order. */
  readonly invocations: readonly ReceivedInvocation[];
}

/**
 * Starts a fake SageMaker Runtime on 127.0.0.1 serving any endpoint name in `endpointNames`.
 *
 * An unknown endpoint gets the `ValidationError` SageMaker sends for it; a wrong method or path gets 404.
 */
export async function startSageMakerRuntimeServer(
  behaviour: InvocationBehaviour,
  options: { readonly endpointNames?: readonly string[] } = {},
): Promise<SageMakerRuntimeTestServer> {
  const invocations: ReceivedInvocation[] = [];
  const server = await startHttpServer(async (request): Promise<ServerAction> => {
    const match = INVOCATIONS_PATH.exec(request.path);
    if (request.method !== 'POST' || !match) {
      return { kind: 'respond', status: 404, body: '' };
    }
    const endpointName = decodeURIComponent(match[1]);
    if (options.endpointNames && !options.endpointNames.includes(endpointName)) {
      return errorResponse(400, 'ValidationError', {
        Message: `Endpoint ${endpointName} of account ${ACCOUNT} not found.`,
      });
    }
    const variant = request.headers['x-amzn-sagemaker-target-variant'];
    const invocation: ReceivedInvocation = {
      ...request,
      endpointName,
      targetVariant: typeof variant === 'string' ? variant : undefined,
    };
    invocations.push(invocation);
    const action = await behaviour(invocation);
    return toServerAction(action, endpointName);
  });
  return { ...server, invocations };
}

function toServerAction(action: InvocationAction, endpointName: string): ServerAction {
  switch (action.kind) {
    case 'ok':
      return {
        kind: 'respond',
        status: 200,
        body: action.body,
        delayMs: action.delayMs,
        headers: {
          'content-type': action.contentType ?? 'application/json',
          'x-amzn-invoked-production-variant': 'AllTraffic',
          ...(action.customAttributes !== undefined ? { 'x-amzn-sagemaker-custom-attributes': action.customAttributes } : {}),
        },
      };
    case 'model-error': {
      const logGroup = `/aws/sagemaker/Endpoints/${endpointName}`;
      const side = action.originalStatusCode >= 500 ? 'server' : 'client';
      return errorResponse(424, 'ModelError', {
        Message:
          `Received ${side} error (${action.originalStatusCode}) from AllTraffic with message ` +
          `"${action.originalMessage}". See https://${REGION}.console.aws.amazon.com/cloudwatch/home?region=${REGION}` +
          `#logEventViewer:group=${logGroup} in account ${ACCOUNT} for more information.`,
        OriginalStatusCode: action.originalStatusCode,
        OriginalMessage: action.originalMessage,
        LogStreamArn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup}`,
      });
    }
    case 'throttle':
      return errorResponse(429, action.errorType ?? 'ThrottlingException', { Message: 'Rate exceeded' });
    case 'service-error':
      return errorResponse(action.status, action.errorType, { Message: action.message });
    case 'stall':
    case 'reset':
      return action;
  }
}

function errorResponse(status: number, errorType: string, body: Record<string, unknown>): ServerAction {
  return {
    kind: 'respond',
    status,
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      'x-amzn-errortype': errorType,
      'x-amzn-requestid': '00000000-0000-4000-8000-000000000000',
    },
  };
}

/**
 * The real SDK client pointed at a local fake: static fake credentials, us-east-1, no retries (so every server
 * answer reaches the caller once).
 */
export function localSageMakerRuntimeClient(url: string): SageMakerRuntimeClient {
  return new SageMakerRuntimeClient({
    endpoint: url,
    region: REGION,
    credentials: { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-test-secret' },
    maxAttempts: 1,
  });
}

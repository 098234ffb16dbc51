// Owns the Powertools Tracer (X-Ray): a middy middleware opening each invocation's segment, on only where the
// deploy turned tracing on (-c tracing=true sets POWERTOOLS_TRACE_ENABLED), and the AWS SDK clients captured into
// it, so a trace shows each DynamoDB, Lambda, SQS, Secrets Manager and KMS call. The Tracer and the X-Ray SDK are
// loaded at the first traced invocation, so a function deployed without tracing never initialises them.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj } from '@middy/core';

type Middleware = MiddlewareObj<unknown, unknown>;

/** The process's SDK clients, captured once a Tracer is loaded (their middleware stacks are per client). */
const clients: object[] = [];
let loadedTracer: Tracer | undefined;

/** Registers an AWS SDK v3 client (one per process, at module scope) to be traced; returns it unchanged. */
export const traced = <T extends object>(client: T): T => {
  clients.push(client);
  loadedTracer?.captureAWSv3Client(client);
  return client;
};

const loadTracing = async (service: string): Promise<Middleware> => {
  const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
    import('@aws-lambda-powertools/tracer'),
    import('@aws-lambda-powertools/tracer/middleware'),
  ]);
  const tracer = new Tracer({ serviceName: service });
  for (const client of clients) tracer.captureAWSv3Client(client);
  loadedTracer = tracer;
  // Not the response: a check's results are the customer's data, and a trace is for timing.
  return captureLambdaHandler(tracer, { captureResponse: false }) as Middleware;
};

// biome-ignore lint/suspicious/noExplicitAny: middy's middleware is generic over the event and result of each handler
export const tracing = (service: string, enabled: boolean): MiddlewareObj<any, any>[] => {
  // None at all when off: middy takes a list, and refuses an empty middleware.
  if (!enabled) return [];
  let loaded: Promise<Middleware> | undefined;
  const middleware = () => {
    loaded ??= loadTracing(service);
    return loaded;
  };
  return [
    {
      before: async (request) => {
        await (await middleware()).before?.(request);
      },
      after: async (request) => {
        await (await middleware()).after?.(request);
      },
      onError: async (request) => {
        await (await middleware()).onError?.(request);
      },
    },
  ];
};

// Owns logging: every logger is a Powertools Logger. On Lambda it writes Powertools' own JSON (with the
// invocation's context); everywhere else a plain formatter writes one JSON object per line,
// {level, time, service, message, ...fields}, readable in a terminal and queryable in CloudWatch Logs. Inside an
// invocation both carry its request id and cold start (lambdaContext, a middleware every handler uses).
import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { MiddlewareObj } from '@middy/core';
import { snakeCaseOf } from './domain/wireKeys';

type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The plain line: the level in lower case, the time in ISO 8601, then the service, the message and the fields. */
class PlainFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, fields: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel.toLowerCase(),
        time: attributes.timestamp.toISOString(),
        service: attributes.serviceName,
        message: attributes.message,
        // Powertools' own key names, so a query reads local and Lambda lines alike.
        ...(context ? { function_request_id: context.awsRequestId, cold_start: context.coldStart } : {}),
      },
    }).addAttributes(fields);
  }

  override formatError(error: Error): LogAttributes {
    return { name: error.name, message: error.message, stack: error.stack };
  }
}

/** Powertools Logger writing each line to `write` instead of its own console. */
class LineLogger extends PowertoolsLogger {
  constructor(
    private readonly writeLine: (line: string) => void,
    service: string,
    level: Level,
  ) {
    super({
      serviceName: service,
      logLevel: level.toUpperCase() as 'INFO',
      logFormatter: new PlainFormatter(),
    });
  }

  protected override printLog(_level: number, log: LogItem): void {
    const line = JSON.stringify(log.getAttributes(), this.getJsonReplacer());
    // Powertools may print while it is still being constructed (a warning about its settings), before writeLine.
    if (this.writeLine) this.writeLine(line);
    else process.stdout.write(`${line}\n`);
  }
}

/** The Powertools Logger behind each of ours, for lambdaContext. */
const powertoolsOf = new WeakMap<Logger, PowertoolsLogger>();

/**
 * One name per fact in every line: each field name in snake_case (`checkId` and `check_id` are one field, so one
 * Logs Insights query finds both), here where every line passes. Top level only: values are logged as given.
 */
const snakeFields = (fields: Record<string, unknown> | undefined): Record<string, unknown> => {
  const named: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields ?? {})) named[snakeCaseOf(name)] = value;
  return named;
};

const wrap = (logger: PowertoolsLogger): Logger => {
  const wrapped: Logger = {
    debug: (message, fields) => logger.debug(message, snakeFields(fields)),
    info: (message, fields) => logger.info(message, snakeFields(fields)),
    warn: (message, fields) => logger.warn(message, snakeFields(fields)),
    error: (message, fields) => logger.error(message, snakeFields(fields)),
  };
  powertoolsOf.set(wrapped, logger);
  return wrapped;
};

/**
 * Middy middleware giving every line of an invocation its request id and cold start (Powertools'
 * injectLambdaContext). Never the event: a request's headers carry its API key. A logger not built here is left be.
 */
// biome-ignore lint/suspicious/noExplicitAny: middy's middleware is generic over the event and result of each handler
export const lambdaContext = (log: Logger): MiddlewareObj<any, any>[] => {
  const logger = powertoolsOf.get(log);
  // A list, empty for a logger not built here: middy refuses an empty middleware.
  return logger ? [injectLambdaContext(logger, { logEvent: false, resetKeys: true }) as MiddlewareObj] : [];
};

/** The logger of npm start, the CLIs, the bench and the tests: plain JSON lines, to stdout unless told otherwise. */
export const createLogger = (
  service: string,
  minLevel: Level = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger => wrap(new LineLogger(write, service, minLevel));

/** The logger on Lambda: Powertools' own format, which CloudWatch and the Lambda context fields expect. */
export const createLambdaLogger = (service: string, level: string): Logger =>
  wrap(new PowertoolsLogger({ serviceName: service, logLevel: level.toUpperCase() as 'INFO' }));

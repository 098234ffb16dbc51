// Owns logging: every logger is a Powertools Logger. On Lambda it writes Powertools' own JSON (with the
// invocation's context); everywhere else a plain formatter writes one JSON object per line,
// {level, time, service, message, ...fields}, readable in a terminal and queryable in CloudWatch Logs.
import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

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
    return new LogItem({
      attributes: {
        level: attributes.logLevel.toLowerCase(),
        time: attributes.timestamp.toISOString(),
        service: attributes.serviceName,
        message: attributes.message,
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

const wrap = (logger: PowertoolsLogger): Logger => ({
  debug: (message, fields) => logger.debug(message, fields ?? {}),
  info: (message, fields) => logger.info(message, fields ?? {}),
  warn: (message, fields) => logger.warn(message, fields ?? {}),
  error: (message, fields) => logger.error(message, fields ?? {}),
});

/** The logger of npm start, the CLIs, the bench and the tests: plain JSON lines, to stdout unless told otherwise. */
export const createLogger = (
  service: string,
  minLevel: Level = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger => wrap(new LineLogger(write, service, minLevel));

/** The logger on Lambda: Powertools' own format, which CloudWatch and the Lambda context fields expect. */
export const createLambdaLogger = (service: string, level: string): Logger =>
  wrap(new PowertoolsLogger({ serviceName: service, logLevel: level.toUpperCase() as 'INFO' }));

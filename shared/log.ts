// Owns structured logging: one JSON object per line, readable in a terminal and queryable in CloudWatch Logs.

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const errorFields = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

export const createLogger = (
  service: string,
  minLevel: Level = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger => {
  const emit = (level: Level, message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < ORDER[minLevel]) return;
    const entries = Object.entries(fields).map(([key, value]) => [key, errorFields(value)]);
    write(
      JSON.stringify({
        level,
        time: new Date().toISOString(),
        service,
        message,
        ...Object.fromEntries(entries),
      }),
    );
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
};

export const parseLevel = (value: string | undefined): Level =>
  value && value in ORDER ? (value as Level) : 'info';

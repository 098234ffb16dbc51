// Owns `npm run admin -- monitors …`: create (the message checked, then sealed), list, pause, resume, delete,
// run-now (one run at once, as the schedule runs it) and status (the alarm's judgement per provider).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoMonitorStore } from '../adapters/dynamo/DynamoMonitorStore';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { addressOfFrom } from '../adapters/smtp/envelopeFrom';
import { parseSmtpUrl } from '../adapters/smtp/smtp';
import { composeMonitors } from '../composition/monitors';
import { systemClock } from '../domain/clock';
import { InvalidInputError } from '../domain/errors';
import type { Sealer } from '../domain/sealer';
import { createLogger } from '../log';
import {
  checkMonitorMessage,
  judgeLatest,
  MAX_MESSAGE_BYTES,
  type Monitor,
  parseMonitorEvery,
  runMonitor,
  sealContextOf,
  validateMonitorName,
  validateMonitorScope,
} from '../monitors';
import { parseStartRequest } from '../webhooks';
import { formatTable } from './listingTable';

export interface MonitorContext {
  client: DynamoDBDocumentClient;
  table: string;
  sealer: Sealer;
  out: (text: string) => void;
  json: boolean;
  /** The SMTP password for a --send-via URL naming a user (SMTP_PASSWORD), sealed with the message. */
  smtpPassword: string | undefined;
  /** The local config file where this process must scan for itself (the local store); absent on a stack. */
  localConfig: string | undefined;
  /** Whether a callback URL may be http:// on loopback (WEBHOOK_ALLOW_LOOPBACK_HTTP=1). */
  allowLoopbackHttp: boolean;
}

export interface MonitorFlags {
  scope?: string | undefined;
  name?: string | undefined;
  eml?: string | undefined;
  every?: string | undefined;
  'send-via'?: string | undefined;
  from?: string | undefined;
  'callback-url'?: string | undefined;
  key?: string | undefined;
  window?: string | undefined;
}

/** Reads at most 1 MB + 1 byte: a larger file is refused by its size, never read whole. */
const readCapped = (path: string): Buffer => {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_MESSAGE_BYTES)
      throw new InvalidInputError(`${path} is ${size} bytes; a monitor keeps at most 1 MB`);
    const buffer = Buffer.alloc(Math.min(size, MAX_MESSAGE_BYTES) + 1);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
};

const windowOf = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1 || runs > 200)
    throw new InvalidInputError('--window takes 1 to 200 runs');
  return runs;
};

const monitorOf = (flags: MonitorFlags, now: number, allowLoopbackHttp: boolean): Monitor => {
  const everyMs = parseMonitorEvery(flags.every);
  const callbackUrl =
    flags['callback-url'] === undefined
      ? undefined
      : parseStartRequest(Buffer.from(JSON.stringify({ callback_url: flags['callback-url'] })), {
          allowLoopbackHttp,
        }).callbackUrl;
  if (callbackUrl && !flags.key)
    throw new InvalidInputError('--callback-url needs --key <key-id>: its webhook secret signs each run');
  return {
    scope: validateMonitorScope(flags.scope),
    name: validateMonitorName(flags.name),
    everyMs,
    state: 'active',
    createdAt: now,
    nextRunAt: now + everyMs,
    ...(flags.key ? { keyId: flags.key } : {}),
    ...(callbackUrl ? { callbackUrl } : {}),
    ...(flags.window ? { windowRuns: windowOf(flags.window) } : {}),
  };
};

const createMonitor = async (ctx: MonitorContext, flags: MonitorFlags): Promise<number> => {
  const monitor = monitorOf(flags, systemClock.now(), ctx.allowLoopbackHttp);
  if (!flags.eml) throw new InvalidInputError('monitors create needs --eml <file>');
  const sendVia = flags['send-via'];
  if (!sendVia) throw new InvalidInputError('monitors create needs --send-via smtps://[user@]host[:port]');
  parseSmtpUrl(sendVia, ctx.smtpPassword, '--send-via');
  const bytes = readCapped(flags.eml);
  const facts = checkMonitorMessage(bytes);
  const eml = bytes.toString('base64');
  const from = flags.from ?? addressOfFrom(eml);
  const secret = JSON.stringify({ eml, sendVia, password: ctx.smtpPassword, from });
  const sealed = await ctx.sealer.seal(secret, sealContextOf(monitor.scope, monitor.name));
  if (!(await new DynamoMonitorStore(ctx.client, ctx.table).create(monitor, sealed)))
    throw new InvalidInputError(`scope ${monitor.scope} already has a monitor named ${monitor.name}`);
  ctx.out(
    ctx.json
      ? JSON.stringify({ ...monitorJson(monitor), headers: facts.headerCount, bytes: bytes.length })
      : `created monitor ${monitor.name} in scope ${monitor.scope}: ${bytes.length} bytes, ${facts.headerCount} headers, sealed; first run at ${iso(monitor.nextRunAt)}`,
  );
  return 0;
};

const iso = (ms: number) => new Date(ms).toISOString();
const monitorJson = (monitor: Monitor) => ({
  scope: monitor.scope,
  name: monitor.name,
  every_ms: monitor.everyMs,
  state: monitor.state,
  next_run_at: iso(monitor.nextRunAt),
  callback_url: monitor.callbackUrl ?? null,
  window_runs: monitor.windowRuns ?? null,
});

const listMonitors = async (ctx: MonitorContext, scope: string | undefined): Promise<number> => {
  const monitors = await new DynamoMonitorStore(ctx.client, ctx.table).list(scope);
  const rows = monitors.map(monitorJson);
  ctx.out(
    ctx.json
      ? JSON.stringify(rows)
      : rows.length === 0
        ? 'no monitors'
        : formatTable(
            rows.map((row) => ({
              scope: row.scope,
              name: row.name,
              every: `${row.every_ms / 1000}s`,
              state: row.state,
              next_run_at: row.next_run_at,
            })),
            ['scope', 'name', 'every', 'state', 'next_run_at'],
          ),
  );
  return 0;
};

const existing = async (ctx: MonitorContext, flags: MonitorFlags, name: string | undefined) => {
  const scope = validateMonitorScope(flags.scope);
  const monitor = await new DynamoMonitorStore(ctx.client, ctx.table).get(scope, validateMonitorName(name));
  if (!monitor) throw new InvalidInputError(`scope ${scope} has no monitor named ${name}`);
  return monitor;
};

const changeMonitor = async (
  ctx: MonitorContext,
  flags: MonitorFlags,
  name: string | undefined,
  verb: 'pause' | 'resume' | 'delete',
): Promise<number> => {
  const monitor = await existing(ctx, flags, name);
  const store = new DynamoMonitorStore(ctx.client, ctx.table);
  if (verb === 'delete') await store.remove(monitor.scope, monitor.name);
  else await store.update(monitor.scope, monitor.name, { state: verb === 'pause' ? 'paused' : 'active' });
  ctx.out(
    `${verb === 'delete' ? 'deleted' : verb === 'pause' ? 'paused' : 'resumed'} monitor ${monitor.name}`,
  );
  return 0;
};

const monitorStatus = async (ctx: MonitorContext, flags: MonitorFlags, name: string | undefined) => {
  const monitor = await existing(ctx, flags, name);
  const store = new DynamoMonitorStore(ctx.client, ctx.table);
  // The same judgement as the run's: its runs and the scope's latest control run.
  const controls = new DynamoSeedHistory(ctx.client, ctx.table);
  const judgements = await judgeLatest({ monitors: store, controls }, monitor);
  ctx.out(
    ctx.json
      ? JSON.stringify({ ...monitorJson(monitor), providers: judgements })
      : [`monitor ${monitor.name} (${monitor.state})`, ...judgements.map((j) => `  ${j.text}`)].join('\n'),
  );
  return judgements.some((j) => j.state === 'drop' || j.state === 'message') ? 1 : 0;
};

const runMonitorNow = async (ctx: MonitorContext, flags: MonitorFlags, name: string | undefined) => {
  const monitor = await existing(ctx, flags, name);
  const composed = composeMonitors({
    client: ctx.client,
    tableName: ctx.table,
    clock: systemClock,
    log: createLogger('monitors', 'warn'),
    sealer: ctx.sealer,
    localConfig: ctx.localConfig,
  });
  try {
    const { run, judgements } = await runMonitor(composed.deps, monitor);
    ctx.out(
      ctx.json
        ? JSON.stringify({ check_id: run.checkId, by_provider: run.byProvider, providers: judgements })
        : [`monitor ${monitor.name}: check ${run.checkId}`, ...judgements.map((j) => `  ${j.text}`)].join(
            '\n',
          ),
    );
    return 0;
  } finally {
    await composed.close();
  }
};

/** `monitors <verb> [name]`: one door for admin.ts. */
export const monitorCommand = async (
  ctx: MonitorContext,
  verb: string | undefined,
  name: string | undefined,
  flags: MonitorFlags,
): Promise<number> => {
  switch (verb) {
    case 'create':
      return createMonitor(ctx, flags);
    case 'list':
      return listMonitors(ctx, flags.scope);
    case 'pause':
    case 'resume':
    case 'delete':
      return changeMonitor(ctx, flags, name, verb);
    case 'run-now':
      return runMonitorNow(ctx, flags, name);
    case 'status':
      return monitorStatus(ctx, flags, name);
    default:
      throw new InvalidInputError(
        `unknown command "monitors ${verb ?? ''}": create, list, pause, resume, delete, run-now or status`,
      );
  }
};

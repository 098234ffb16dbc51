// Owns the operator's calibration commands: `calibrate` (a control message to every seed of every scope) and the
// seeds' record: `accounts health`, `accounts rest` and `accounts unrest`.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { calibrate, calibrateScope, latestCalibrations, seedRecordOf } from '../calibration';
import { composeCalibration } from '../composition/calibration';
import type { CliSettings } from '../config';
import { systemClock } from '../domain/clock';
import { InvalidInputError } from '../domain/errors';
import { createLogger } from '../log';
import { runJson, runLines } from './calibrationRun';
import { formatTable } from './listingTable';

export interface CalibrationContext {
  client: DynamoDBDocumentClient;
  table: string;
  registry: DynamoAccountRegistry;
  out: (text: string) => void;
  json: boolean;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * On the local store this process also runs a scanner loop over the local config's mailboxes (npm start may not be
 * running); on a deployed stack the table's stream wakes the scanner.
 */
export const runCalibration = async (
  ctx: CalibrationContext,
  settings: CliSettings,
  options: { scope?: string | undefined; local: boolean },
): Promise<number> => {
  const control = settings.controlSender;
  if (!control)
    throw new InvalidInputError(
      'calibrate needs the control sender: set CONTROL_SMTP_URL (smtp://user@host:587) and CONTROL_FROM',
    );
  const calibration = composeCalibration({
    client: ctx.client,
    tableName: ctx.table,
    clock: systemClock,
    log: createLogger('calibrate', 'warn'),
    sender: {
      smtpUrl: control.smtpUrl,
      password: control.password,
      from: control.from,
      option: 'CONTROL_SMTP_URL',
    },
    localConfig: options.local ? settings.localConfig : undefined,
  });
  try {
    const outcome = options.scope
      ? { calibrated: [await calibrateScope(calibration.deps, options.scope)], failed: [] }
      : await calibrate(calibration.deps);
    ctx.out(
      ctx.json
        ? JSON.stringify({
            calibrated: outcome.calibrated.map(({ run }) => runJson(run)),
            failed: outcome.failed,
          })
        : [
            ...outcome.calibrated.flatMap(runLines),
            ...outcome.failed.map(({ scope, error }) => `scope ${scope}: failed: ${error}`),
            ...(outcome.calibrated.length + outcome.failed.length === 0
              ? ['no active seeds to calibrate']
              : []),
          ].join('\n'),
    );
    return outcome.failed.length > 0 ? 1 : 0;
  } finally {
    await calibration.close();
  }
};

/** Every seed with its calibration history (newest first), suspect and rested marks, last delivery and login. */
export const listSeedHealth = async (ctx: CalibrationContext): Promise<number> => {
  const history = new DynamoSeedHistory(ctx.client, ctx.table);
  const seeds = [];
  for (const account of await ctx.registry.list()) {
    const record = seedRecordOf(account.email, await history.historyOf(account.email), systemClock.now());
    seeds.push({ account, record });
  }
  ctx.out(
    ctx.json
      ? JSON.stringify(
          seeds.map(({ account, record }) => ({
            email: account.email,
            provider: account.provider,
            scope: account.scope,
            rested: account.rested === true,
            suspect: record.suspect,
            state: record.state,
            last_delivery_at: iso(record.lastDeliveryAt),
            last_login_at: iso(record.lastLoginAt),
            login_failures: account.health.failures,
            history: record.history.map((entry) => ({
              check_id: entry.checkId,
              at: iso(entry.at),
              placement: entry.placement,
              category: entry.category,
              provider_astray: entry.providerAstray === true,
              delivered_at: iso(entry.deliveredAt),
            })),
          })),
        )
      : formatTable(
          seeds.map(({ account, record }) => ({
            email: account.email,
            provider: account.provider,
            state: [record.state, ...(account.rested ? ['rested'] : [])].join(', '),
            latest: latestCalibrations(record.history)
              .map((entry) => entry.placement)
              .join(' '),
            calibrations: String(record.history.length),
            'last delivery': iso(record.lastDeliveryAt) ?? '-',
            'last login': iso(record.lastLoginAt) ?? '-',
            'login failures': String(account.health.failures),
          })),
          [
            'email',
            'provider',
            'state',
            'latest',
            'calibrations',
            'last delivery',
            'last login',
            'login failures',
          ],
        ),
  );
  return 0;
};

export const restSeed = async (ctx: CalibrationContext, email: string, rest: boolean): Promise<number> => {
  const changed = await ctx.registry.setRested(email, rest ? systemClock.now() : undefined);
  if (!changed) throw new InvalidInputError(`no account ${email} is registered`);
  ctx.out(
    rest
      ? `rested ${email}: new checks leave it out; calibrations still reach it`
      : `${email} is back in new checks`,
  );
  return 0;
};

// Starts what npm start runs (composeLocalService over its own dynalite and config file) for the sender audit's
// mail-stack tests: the stack's accounts, the loopback Knot server as the audit's DNS with the test blocklist zones,
// an API key, and counts of the audit's source fetches and its time to stored per check. Every response is checked
// against openapi.yaml.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { pollUntil } from '../../scripts/lib/poll';
import { TEST_LIST_ZONES } from '../../scripts/lib/testZones';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../../shared/adapters/dynamo/DynamoApiKeyStore';
import { composeLocalService } from '../../shared/composition/localService';
import { loadLocalSettings } from '../../shared/config';
import { generateApiKey, newApiKeyRecord } from '../../shared/domain/apiKey';
import type { ReportAudit } from '../../shared/domain/auditReport';
import { systemClock } from '../../shared/domain/clock';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { ensureTable, syncAccounts } from '../../shared/local/bootstrap';
import { readLocalConfig } from '../../shared/local/localConfig';
import { LOCAL_TABLE, openLocalStore } from '../../shared/local/localStore';
import { createLogger } from '../../shared/log';
import { stackAccount } from './mailStack';
import { validateResponse } from './openapi';
import { rawRequest } from './rawRequest';

/** Each default list's id, asked at its zone on the test server instead of the operator's. */
const TEST_LIST_ZONE_IDS: Readonly<Record<string, string>> = {
  'spamhaus-zen': TEST_LIST_ZONES.zen,
  'spamhaus-dbl': TEST_LIST_ZONES.dbl,
  spamcop: TEST_LIST_ZONES.spamcop,
  barracuda: TEST_LIST_ZONES.barracuda,
  'surbl-multi': TEST_LIST_ZONES.surbl,
  'uribl-multi': TEST_LIST_ZONES.uribl,
};

export interface AuditService {
  baseUrl: string;
  dns: DnsServer;
  /** Source fetches the audit made, per check id. */
  fetches: Map<string, number>;
  /** Milliseconds from a check's first recorded copy to its audit stored, per check id. */
  storedAfterMs: Map<string, number>;
  /** Starts a check with the service's key; its addresses are the seeds'. */
  startCheck(): Promise<{ check_id: string; accounts: string[] }>;
  report(checkId: string): Promise<PlacementReport>;
  /** Reads the report until its audit leaves `pending` (or `timeoutMs` pass), and returns that audit. */
  settledAudit(checkId: string, timeoutMs?: number): Promise<ReportAudit | undefined>;
  close(): Promise<void>;
}

const SCOPE = 'audit';

/** `seeds`: the stack's accounts to place copies in; `env`: more of npm start's settings (AUDIT, DNS_BUDGET_MS …). */
export const startAuditService = async (
  seeds: readonly string[],
  env: Record<string, string> = {},
): Promise<AuditService> => {
  const dns = await startDnsServer();
  const dir = mkdtempSync(join(tmpdir(), 'audit-service-'));
  const configPath = join(dir, 'local.json');
  writeFileSync(
    configPath,
    JSON.stringify({ accounts: seeds.map((email) => ({ ...stackAccount(email), scope: SCOPE })) }),
  );
  const settings = loadLocalSettings({
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: configPath,
    SCAN_INTERVAL_MS: '250',
    LOG_LEVEL: 'error',
    DNS_SERVERS: dns.address,
    ...env,
  });
  const store = await openLocalStore(settings.DATA_DIR);
  await ensureTable(store.client, LOCAL_TABLE);
  const accounts = await syncAccounts(
    new DynamoAccountRegistry(store.client, LOCAL_TABLE),
    readLocalConfig(configPath),
  );
  const key = generateApiKey();
  await new DynamoApiKeyStore(store.client, LOCAL_TABLE).create(
    newApiKeyRecord(key, { scope: SCOPE, label: 'audit test' }, systemClock.now()),
  );
  const service = await composeLocalService({
    settings,
    store,
    configPath,
    accounts,
    log: createLogger('test', 'error', () => undefined),
    auditListZones: TEST_LIST_ZONE_IDS,
  });
  const fetches = new Map<string, number>();
  const storedAfterMs = new Map<string, number>();
  service.parts.audits.listen({
    fetched: (checkId) => fetches.set(checkId, (fetches.get(checkId) ?? 0) + 1),
    stored: (checkId, afterMs) => storedAfterMs.set(checkId, afterMs),
  });
  await service.start();
  service.server.listen(0, '127.0.0.1');
  await once(service.server, 'listening');
  const baseUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string): Promise<unknown> => {
    const response = await rawRequest(baseUrl, method, path, { authorization: `Bearer ${key}` });
    const body: unknown = JSON.parse(response.text);
    validateResponse(method, path, response.status, body, response.headers);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}`);
    return body;
  };
  const report = async (checkId: string) =>
    (await call('GET', `/api/spam-check/${checkId}/report`)) as PlacementReport;
  return {
    baseUrl,
    dns,
    fetches,
    storedAfterMs,
    startCheck: async () =>
      (await call('POST', '/api/spam-check/start')) as { check_id: string; accounts: string[] },
    report,
    settledAudit: async (checkId, timeoutMs = 30_000) =>
      (
        await pollUntil(
          () => report(checkId),
          (read) => read.audit?.state !== 'pending',
          { timeoutMs, intervalMs: 100 },
        )
      ).audit,
    close: async () => {
      await service.stop();
      await store.close();
      await dns.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

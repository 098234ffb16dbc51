// Monitors over the local store (dynalite): the admin commands create (the message sealed: no byte of it in the
// table), list, pause, resume, refuse a second of the same name, and delete; a run is an ordinary check tagged with
// the monitor, its copies counted per provider (a copy never recorded is missing), kept, published to the in-process
// sink under the monitor and provider only, and judged. The scanner is played by the test sender, which records each
// tagged copy where a rule of the test puts it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoMonitorStore } from '../../shared/adapters/dynamo/DynamoMonitorStore';
import { DynamoOpenChecks } from '../../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { runAdmin } from '../../shared/cli/adminCommands';
import { loadCliSettings } from '../../shared/config';
import { tagAddress } from '../../shared/domain/address';
import { ensureTable } from '../../shared/local/bootstrap';
import { localSealer } from '../../shared/local/localItemKey';
import { LOCAL_TABLE, type LocalStore, openLocalStore } from '../../shared/local/localStore';
import { MemoryMetricsSink } from '../../shared/local/MemoryMetricsSink';
import { runMonitor } from '../../shared/monitors/runMonitor';
import { ManualClock } from '../support/manualClock';

const MESSAGE =
  'From: Welcome <hello@sender.test>\r\nSubject: Welcome aboard\r\n\r\nHello, customer 4711.\r\n';
const SEEDS = [
  { email: 'g1@mail.test', provider: 'gmail' },
  { email: 'g2@mail.test', provider: 'gmail' },
  { email: 'y1@mail.test', provider: 'yahoo' },
];

describe('monitors on the local store', () => {
  let dir: string;
  let store: LocalStore;
  const lines: string[] = [];
  const admin = (...argv: string[]) => {
    lines.length = 0;
    return runAdmin(argv, (text) => lines.push(text), {
      ...loadCliSettings({}),
      dataDir: dir,
      localConfig: join(dir, 'local.json'),
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'monitors-'));
    writeFileSync(join(dir, 'welcome.eml'), MESSAGE);
    store = await openLocalStore(dir);
    await ensureTable(store.client, LOCAL_TABLE);
    const registry = new DynamoAccountRegistry(store.client, LOCAL_TABLE);
    for (const seed of SEEDS) await registry.put({ ...seed, scope: 'default', active: true });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a sealed monitor, lists, pauses and resumes it, and refuses a second of its name', async () => {
    const create = ['monitors', 'create', '--scope', 'default', '--name', 'welcome', '--eml'];
    const rest = ['--every', '6h', '--send-via', 'smtp://127.0.0.1:2525'];
    expect(await admin(...create, join(dir, 'welcome.eml'), ...rest)).toBe(0);
    expect(lines.join('\n')).toContain('created monitor welcome in scope default');
    const items = JSON.stringify(
      (await store.client.send(new ScanCommand({ TableName: LOCAL_TABLE }))).Items,
    );
    expect(items).toContain('MONITORMSG#default#welcome');
    expect(items).not.toContain('customer 4711');
    expect(items).not.toContain('Welcome aboard');
    expect(statSync(join(dir, 'item-key')).mode & 0o777).toBe(0o600);
    await expect(admin(...create, join(dir, 'welcome.eml'), ...rest)).rejects.toThrow(
      'already has a monitor',
    );

    expect(await admin('monitors', 'pause', 'welcome', '--scope', 'default')).toBe(0);
    expect(await admin('monitors', 'list', '--json')).toBe(0);
    expect(JSON.parse(lines[0] ?? '[]')).toMatchObject([
      { name: 'welcome', state: 'paused', every_ms: 21_600_000 },
    ]);
    expect(await admin('monitors', 'resume', 'welcome', '--scope', 'default')).toBe(0);
    expect(await admin('monitors', 'list')).toBe(0);
    expect(lines.join('\n')).toMatch(/welcome +21600s +active/);
  });

  it('refuses a bad message, a bad interval and a webhook without a key, naming the problem', async () => {
    writeFileSync(join(dir, 'bad.eml'), 'Subject: no sender\r\n\r\nbody');
    const base = [
      'monitors',
      'create',
      '--scope',
      'default',
      '--name',
      'other',
      '--send-via',
      'smtp://127.0.0.1:2525',
    ];
    await expect(admin(...base, '--eml', join(dir, 'bad.eml'), '--every', '1h')).rejects.toThrow(
      'no From header',
    );
    await expect(admin(...base, '--eml', join(dir, 'welcome.eml'), '--every', '1w')).rejects.toThrow(
      '--every takes',
    );
    await expect(
      admin(
        ...base,
        '--eml',
        join(dir, 'welcome.eml'),
        '--every',
        '1h',
        '--callback-url',
        'https://hooks.example.com/x',
      ),
    ).rejects.toThrow('--callback-url needs --key');
    writeFileSync(join(dir, 'big.eml'), Buffer.alloc(1024 * 1024 + 1, 'a'));
    await expect(admin(...base, '--eml', join(dir, 'big.eml'), '--every', '1h')).rejects.toThrow(
      'at most 1 MB',
    );
  });

  it('runs it as an ordinary check tagged with its name, counts, publishes and judges each run', async () => {
    const clock = new ManualClock(Date.now());
    const checks = new DynamoCheckStore(
      store.client,
      LOCAL_TABLE,
      new DynamoShardLayout(store.client, LOCAL_TABLE),
    );
    const open = new DynamoOpenChecks(
      store.client,
      LOCAL_TABLE,
      new DynamoShardLayout(store.client, LOCAL_TABLE),
    );
    const monitors = new DynamoMonitorStore(store.client, LOCAL_TABLE);
    const sink = new MemoryMetricsSink();
    const sent: { recipients: readonly string[]; eml: string }[] = [];
    const deps = {
      monitors,
      sealer: localSealer(dir),
      accounts: new DynamoAccountRegistry(store.client, LOCAL_TABLE),
      checks,
      clock,
      telemetry: sink,
      pollMs: 30_000,
      senderFor: () => ({
        // The scanner's part: g1 in the inbox, g2 in spam, y1 never arrives.
        send: async (recipients: readonly string[], eml: Uint8Array) => {
          sent.push({ recipients, eml: Buffer.from(eml).toString('utf8') });
          for (const address of recipients) {
            // A tagged address ends its local part with the check id (20 characters).
            const checkId = address.split('@')[0]?.slice(-20) ?? '';
            const email = SEEDS.find((seed) => tagAddress(seed.email, checkId) === address)?.email;
            if (email === 'g1@mail.test') await open.recordResult(checkId, email, 'primary', clock.now());
            if (email === 'g2@mail.test') await open.recordResult(checkId, email, 'spam', clock.now());
          }
        },
        close: () => undefined,
      }),
    };
    const monitor = await monitors.get('default', 'welcome');
    if (!monitor) throw new Error('no monitor');
    const first = await runMonitor(deps, monitor);
    clock.advance(3_600_000);
    // A monitor with a callback URL: its run's check carries the webhook as any check started with one does.
    const hooked = { ...monitor, callbackUrl: 'https://hooks.example.com/placement', keyId: 'a1b2c3d4' };
    const second = await runMonitor(deps, hooked);
    expect((await checks.get(second.run.checkId))?.callback).toMatchObject({
      callbackUrl: 'https://hooks.example.com/placement',
      keyId: 'a1b2c3d4',
    });
    expect((await checks.get(first.run.checkId))?.callback).toBeUndefined();

    expect(sent[0]?.eml).toBe(MESSAGE);
    expect(sent[0]?.recipients).toHaveLength(3);
    expect((await checks.get(first.run.checkId))?.monitor).toBe('welcome');
    expect(first.run.byProvider).toEqual({
      gmail: { inbox: 1, spam: 1, other: 0, missing: 0, total: 2 },
      yahoo: { inbox: 0, spam: 0, other: 0, missing: 1, total: 1 },
    });
    expect((await monitors.runs('default', 'welcome', 10)).map((run) => run.checkId)).toEqual([
      second.run.checkId,
      first.run.checkId,
    ]);
    expect(second.judgements.map((j) => [j.provider, j.state])).toEqual([
      ['gmail', 'waiting'],
      ['yahoo', 'waiting'],
    ]);
    // 4 counts and the judgement (MonitorDrop) a provider a run, each under the monitor and the provider only.
    expect(sink.points).toHaveLength(20);
    expect(sink.points.filter((p) => p.spec.name === 'MonitorDrop').map((p) => p.value)).toEqual([
      0, 0, 0, 0,
    ]);
    for (const point of sink.points)
      expect(Object.keys(point.dimensions).sort()).toEqual(['Monitor', 'Provider']);
    expect(
      sink.points.filter((p) => p.spec.name === 'MonitorMissing' && p.dimensions.Provider === 'yahoo'),
    ).toEqual([expect.objectContaining({ value: 1 }), expect.objectContaining({ value: 1 })]);
  });

  it('deletes it with its sealed message', async () => {
    expect(await admin('monitors', 'status', 'welcome', '--scope', 'default')).toBe(0);
    expect(lines.join('\n')).toContain('monitor welcome (active)');
    expect(lines.join('\n')).toContain(
      'monitor welcome, gmail: too few runs to judge (2 of 35 runs); inbox 2 of 4 (50 %',
    );
    // 2 gmail seeds need 35 runs for 80 % power to see 90 % fall to 70 %; 1 yahoo seed 69; a missing copy counts.
    expect(lines.join('\n')).toContain('yahoo: too few runs to judge (2 of 69 runs); inbox 0 of 2');
    expect(await admin('monitors', 'delete', 'welcome', '--scope', 'default')).toBe(0);
    const items = JSON.stringify(
      (await store.client.send(new ScanCommand({ TableName: LOCAL_TABLE }))).Items,
    );
    expect(items).not.toContain('MONITORMSG#');
    await expect(admin('monitors', 'pause', 'welcome', '--scope', 'default')).rejects.toThrow(
      'has no monitor',
    );
    expect(readdirSync(dir)).toContain('item-key');
    expect(readFileSync(join(dir, 'item-key'), 'utf8').length).toBeGreaterThan(40);
  });
});

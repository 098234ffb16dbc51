// Owns the loopback DNS server the tests resolve against: Debian's Knot DNS (knotd), authoritative for the test
// zones only, on 127.0.0.1 and a free port, in a folder of its own; a test that needs it starts and stops it.
import { type ChildProcess, spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort';
import { zoneFiles } from './zoneFiles';

/** Where Debian's knot package puts the daemon: the system part that installs it checks this path. */
export const KNOTD_PATH = '/usr/sbin/knotd';

export interface DnsServer {
  /** `127.0.0.1:<port>`, as node:dns setServers takes it. */
  address: string;
  port: number;
  stop(): Promise<void>;
}

/** What one server serves: zone files by origin, origins configured without a file (knotd answers SERVFAIL for
 * them: how a test makes a name fail as a timeout would), and a name whose SOA says it is serving. */
export interface ServedZones {
  files: ReadonlyMap<string, string>;
  failing?: readonly string[];
  probe?: string;
}

const knotConfig = (dir: string, port: number, origins: string[], failing: readonly string[]) =>
  [
    'server:',
    `    rundir: "${dir}"`,
    `    listen: 127.0.0.1@${port}`,
    '    udp-workers: 1',
    '    tcp-workers: 1',
    '    background-workers: 1',
    'log:',
    '  - target: stderr',
    '    any: warning',
    'database:',
    `    storage: "${join(dir, 'db')}"`,
    'template:',
    '  - id: default',
    `    storage: "${join(dir, 'zones')}"`,
    '    journal-content: none',
    '    zonefile-sync: -1',
    'zone:',
    ...origins.map((origin) => `  - domain: ${origin}\n    file: ${fileOf(origin)}`),
    ...failing.map((origin) => `  - domain: ${origin}\n    file: absent-${fileOf(origin)}`),
    '',
  ].join('\n');

/** A zone file's name: the root zone's origin is `.`. */
const fileOf = (origin: string) => `${origin === '.' ? 'root' : origin}.zone`;

/** Resolves once the server answers for the first zone, or rejects after `ms` with what knotd printed. */
const waitUntilServing = async (
  port: number,
  child: ChildProcess,
  output: () => string,
  probe: string,
  ms = 10_000,
) => {
  const resolver = new Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    try {
      await resolver.resolveSoa(probe);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`knotd did not start serving the test zones:\n${output().slice(-2000)}`);
};

/** Starts knotd on the test zones (or the zones given); `stop` ends it and removes its folder. */
export const startDnsServer = async (
  zones: ServedZones = { files: zoneFiles(), probe: 'sender.test' },
): Promise<DnsServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'test-dns-'));
  mkdirSync(join(dir, 'zones'));
  const { files, failing = [] } = zones;
  for (const [origin, text] of files) writeFileSync(join(dir, 'zones', fileOf(origin)), text);
  const port = await freePort();
  const config = join(dir, 'knot.conf');
  writeFileSync(config, knotConfig(dir, port, [...files.keys()], failing));
  const child = spawn(KNOTD_PATH, ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (chunk) => (text += chunk));
  child.stderr?.on('data', (chunk) => (text += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(port, child, () => text, zones.probe ?? [...files.keys()][0] ?? '.');
  } catch (error) {
    await stop();
    throw error;
  }
  return { address: `127.0.0.1:${port}`, port, stop };
};

// Reads pyspf's RFC 7208 test suite (test/fixtures/spf/rfc7208-tests.yml, licence beside it) into what the loopback
// DNS server serves: one root zone per scenario holding its zone data, names the suite marks TIMEOUT as zones that
// fail to load (knotd answers SERVFAIL), and SPF (type 99) records copied to TXT where a name has no TXT, as the
// suite's own driver (pyspf's testspf.py) does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ServedZones } from '../../scripts/lib/dnsServer';

export interface SpfSuiteTest {
  id: string;
  scenario: string;
  helo: string;
  host: string;
  mailfrom: string;
  /** The results the suite accepts. */
  results: string[];
}

export interface SpfScenario {
  description: string;
  zones: ServedZones;
  tests: SpfSuiteTest[];
}

type RawRecord = string | Record<string, unknown>;

const SUITE = join(import.meta.dirname, '..', 'fixtures', 'spf', 'rfc7208-tests.yml');

/** A name in a zone file: every byte outside letters, digits, hyphen and underscore as \DDD, dots kept. */
const ownerName = (name: string) =>
  `${name
    .replace(/\.$/, '')
    .split('.')
    .map((label) =>
      [...Buffer.from(label, 'utf8')]
        .map((byte) =>
          /[A-Za-z0-9_-]/.test(String.fromCharCode(byte))
            ? String.fromCharCode(byte)
            : `\\${String(byte).padStart(3, '0')}`,
        )
        .join(''),
    )
    .join('.')}.`;

/** One character-string: printable ASCII as is (quote and backslash escaped), other bytes as \DDD, 255 bytes each. */
const txtStrings = (strings: string[]) =>
  (strings.length === 0 ? [''] : strings)
    .flatMap((text) => {
      const bytes = [...Buffer.from(text, 'utf8')];
      const chunks: number[][] = [];
      for (let at = 0; at < bytes.length; at += 255) chunks.push(bytes.slice(at, at + 255));
      return chunks.length === 0 ? [[]] : chunks;
    })
    .map(
      (chunk) =>
        `"${chunk
          .map((byte) =>
            byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
              ? String.fromCharCode(byte)
              : `\\${String(byte).padStart(3, '0')}`,
          )
          .join('')}"`,
    )
    .join(' ');

const rdata = (type: string, value: unknown): string | undefined => {
  if (type === 'TXT') return txtStrings(Array.isArray(value) ? value.map(String) : [String(value)]);
  if (type === 'MX' && Array.isArray(value)) {
    const host = String(value[1] ?? '');
    return `${value[0]} ${host === '' ? '.' : ownerName(host)}`;
  }
  if (type === 'PTR' || type === 'CNAME') return ownerName(String(value));
  if (type === 'A' || type === 'AAAA') return String(value);
  return undefined;
};

/** A name the server can hold: labels of 1 to 63 bytes. */
const servable = (name: string) =>
  name
    .replace(/\.$/, '')
    .split('.')
    .every((label) => label.length > 0 && Buffer.byteLength(label) <= 63);

/** One name's records, SPF copied to TXT when the name has no TXT before it (testspf.py's getrdata). */
const recordsOf = (raw: RawRecord[]): { timeout: boolean; records: [string, unknown][] } => {
  const records: [string, unknown][] = [];
  const generated: [string, unknown][] = [];
  let generate = true;
  let timeout = false;
  for (const entry of raw) {
    if (entry === 'TIMEOUT') {
      // A name answers only the types listed before its TIMEOUT; the audit asks TXT first of a name it reads.
      timeout ||= !records.some(([type]) => type === 'TXT');
      continue;
    }
    if (typeof entry === 'string') continue;
    for (const [type, value] of Object.entries(entry)) {
      if (type === 'TXT') generate = false;
      else if (type === 'SPF' && generate) generated.push(['TXT', value]);
      if (value !== 'NONE' && type !== 'SPF') records.push([type, value]);
    }
  }
  return { timeout, records: generate ? [...records, ...generated] : records };
};

const soa = (origin: string) => [
  '$TTL 60',
  `${origin} IN SOA ns.suite.test. hostmaster.suite.test. 1 3600 600 86400 60`,
  `${origin} IN NS ns.suite.test.`,
];

/** The root zone holds every name, except names under a failing one: each of those is a zone of its own. */
const zonesOf = (zonedata: Record<string, RawRecord[]>): ServedZones => {
  const read = Object.entries(zonedata)
    .filter(([name]) => servable(name))
    .map(([name, raw]) => ({ owner: ownerName(name.toLowerCase()), ...recordsOf(raw) }));
  const failing = read.filter((name) => name.timeout).map((name) => name.owner);
  const files = new Map<string, string[]>([['.', soa('.')]]);
  for (const { owner, timeout, records } of read) {
    if (timeout) continue;
    const own = failing.some((zone) => owner.endsWith(`.${zone}`));
    const origin = own ? owner : '.';
    const lines = files.get(origin) ?? soa(owner);
    files.set(origin, lines);
    for (const [type, value] of records) {
      const text = rdata(type, value);
      if (text !== undefined) lines.push(`${owner} IN ${type} ${text}`);
    }
  }
  const origin = (owner: string) => (owner === '.' ? '.' : owner.replace(/\.$/, ''));
  return {
    files: new Map([...files].map(([owner, lines]) => [origin(owner), `${lines.join('\n')}\n`])),
    failing: failing.map(origin),
    probe: '.',
  };
};

const listOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [String(value)]);

/** Every scenario of the suite, in its order. */
export const loadSpfSuite = (): SpfScenario[] =>
  parseAllDocuments(readFileSync(SUITE, 'utf8')).map((document) => {
    const data = document.toJS() as {
      description: string;
      tests: Record<string, Record<string, unknown>>;
      zonedata?: Record<string, RawRecord[]>;
    };
    return {
      description: data.description,
      zones: zonesOf(data.zonedata ?? {}),
      tests: Object.entries(data.tests).map(([id, test]) => ({
        id,
        scenario: data.description,
        helo: String(test.helo ?? ''),
        host: String(test.host ?? ''),
        mailfrom: String(test.mailfrom ?? ''),
        results: listOf(test.result),
      })),
    };
  });

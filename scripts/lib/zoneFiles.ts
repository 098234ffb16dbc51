// Owns turning the test DNS table into what reads it: RFC 1035 zone files for the loopback DNS server, and the
// name -> type -> values table of the mail stack's mailauth resolver. One source, two readers.
import { TEST_RECORDS, TEST_ZONE_ORIGINS, type TestRecord } from './testZones';

/** The origin a name belongs to: the longest one it is, or ends with. */
export const originOf = (name: string, origins: readonly string[] = TEST_ZONE_ORIGINS): string | undefined =>
  origins
    .filter((origin) => name === origin || name.endsWith(`.${origin}`))
    .sort((a, b) => b.length - a.length)[0];

/** A TXT value as zone-file character-strings: at most 255 bytes each (RFC 1035 section 3.3), quoted. */
const txtStrings = (value: string) => {
  const chunks: string[] = [];
  for (let at = 0; at < value.length; at += 255) chunks.push(value.slice(at, at + 255));
  return (chunks.length === 0 ? [''] : chunks)
    .map((chunk) => `"${chunk.replace(/(["\\])/g, '\\$1')}"`)
    .join(' ');
};

const rdata = ([, type, value]: TestRecord) => {
  if (type === 'TXT') return txtStrings(value);
  // Host names in MX and PTR are absolute.
  if (type === 'MX') return value.endsWith('.') ? value : `${value}.`;
  if (type === 'PTR' || type === 'CNAME') return `${value}.`;
  return value;
};

/** Every zone's file text, by origin. */
export const zoneFiles = (records: readonly TestRecord[] = TEST_RECORDS): Map<string, string> => {
  const files = new Map<string, string[]>();
  for (const origin of TEST_ZONE_ORIGINS)
    files.set(origin, [
      '$TTL 60',
      `${origin}. IN SOA ns.sender.test. hostmaster.sender.test. 1 3600 600 86400 60`,
      `${origin}. IN NS ns.sender.test.`,
    ]);
  for (const record of records) {
    const origin = originOf(record[0]);
    if (!origin) throw new Error(`test DNS: ${record[0]} is in no zone`);
    files.get(origin)?.push(`${record[0]}. IN ${record[1]} ${rdata(record)}`);
  }
  return new Map([...files].map(([origin, lines]) => [origin, `${lines.join('\n')}\n`]));
};

/** name -> record type -> values, as the mailauth table resolver reads it (names lower-case). */
export const dnsTable = (
  records: readonly TestRecord[] = TEST_RECORDS,
): Record<string, Record<string, string[]>> => {
  const table: Record<string, Record<string, string[]>> = {};
  for (const [name, type, value] of records) {
    const types = table[name.toLowerCase()] ?? {};
    types[type] = [...(types[type] ?? []), value];
    table[name.toLowerCase()] = types;
  }
  return table;
};

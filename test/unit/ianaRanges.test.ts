// The webhook guard against every entry of IANA's IPv4 and IPv6 special-purpose address registries, read from a
// fixture of the registries: each entry that is not globally reachable is refused at its first, middle and last
// address (the guard may refuse more, never less). Addresses only: nothing here is resolved or connected to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../shared/domain/publicAddress';

interface Entry {
  family: 4 | 6;
  prefix: string;
  name: string;
  reachable: string;
}

const entries: Entry[] = readFileSync(join(__dirname, '../fixtures/iana/special-purpose.csv'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [family = '', prefix = '', ...rest] = line.split(',');
    const reachable = rest.pop() ?? '';
    return { family: Number(family) as 4 | 6, prefix, name: rest.join(',').replace(/"/g, ''), reachable };
  });

const V6_BITS = 128n;

const v6ToBig = (address: string): bigint => {
  const [head = '', tail] = address.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
};

const bigToV6 = (value: bigint): string =>
  Array.from({ length: 8 }, (_, index) => ((value >> BigInt(16 * (7 - index))) & 0xffffn).toString(16)).join(
    ':',
  );

const v4ToNumber = (address: string) =>
  address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
const numberToV4 = (value: number) =>
  [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');

/** The first, a middle and the last address of a prefix. */
const samples = ({ family, prefix }: Entry): string[] => {
  const [network = '', length = ''] = prefix.split('/');
  const bits = Number(length);
  if (family === 4) {
    const first = v4ToNumber(network);
    const size = 2 ** (32 - bits);
    return [first, first + Math.floor(size / 2), first + size - 1].map(numberToV4);
  }
  const first = v6ToBig(network);
  const size = 1n << (V6_BITS - BigInt(bits));
  return [first, first + size / 2n, first + size - 1n].map(bigToV6);
};

describe("IANA's special-purpose address registries", () => {
  it('are all in the fixture, both families', () => {
    expect(entries.filter(({ family }) => family === 4).length).toBeGreaterThanOrEqual(26);
    expect(entries.filter(({ family }) => family === 6).length).toBeGreaterThanOrEqual(25);
  });

  for (const entry of entries.filter(({ reachable }) => reachable !== 'True')) {
    it(`refuses ${entry.prefix} (${entry.name})`, () => {
      for (const address of samples(entry))
        expect([address, isPublicAddress(address)]).toEqual([address, false]);
    });
  }

  it('refuses the two ranges that passed before: IPv4-translated and IPv6 benchmarking', () => {
    expect(isPublicAddress('::ffff:0:c633:6401')).toBe(false);
    expect(isPublicAddress('2001:2::1')).toBe(false);
    expect(isPublicAddress('2001:2:0:ffff:ffff:ffff:ffff:ffff')).toBe(false);
  });

  it('still lets ordinary public addresses through', () => {
    for (const address of [
      '93.184.215.14',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      '2a00:1450:4001:830::200e',
    ])
      expect(isPublicAddress(address)).toBe(true);
  });
});

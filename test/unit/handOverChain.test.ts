// The scanner's hand-over chain is bounded: each hand-over event carries its hop and the chain's start, the next hop
// past either bound is not sent, and an event past them is refused when received.
import { describe, expect, it } from 'vitest';
import { handOverNext } from '../../shared/composition/scanLambda';
import { chainOf, chainRefusal, MAX_CHAIN_MS, MAX_HOPS, nextHop } from '../../shared/scanner/handOverChain';
import { handOverEvent, shardOfEvent, wakeOf } from '../../shared/scanner/invocation';

const NOW = 1_800_000_000_000;
const SHARD = { index: 2, count: 5 };

describe('the hand-over chain', () => {
  it('starts a chain at hop 0 for the schedule, and carries hop and start through a hand-over', () => {
    expect(chainOf({ source: 'aws.events' }, NOW)).toEqual({ hop: 0, startedAt: NOW });
    const event = JSON.parse(JSON.stringify(handOverEvent(SHARD, { hop: 7, startedAt: NOW - 1000 })));
    expect(wakeOf(event)).toBe('hand-over');
    expect(shardOfEvent(event)).toEqual(SHARD);
    expect(chainOf(event, NOW)).toEqual({ hop: 7, startedAt: NOW - 1000 });
    // A malformed hop is not a chain: it starts a new one rather than trusting it.
    expect(chainOf({ hop: -1, chainStart: NOW }, NOW)).toEqual({ hop: 0, startedAt: NOW });
    expect(chainOf({ hop: '3', chainStart: NOW }, NOW)).toEqual({ hop: 0, startedAt: NOW });
  });

  it('refuses the next hop past the hop bound or past a day, and a received chain past them', () => {
    expect(nextHop({ hop: 3, startedAt: NOW }, NOW)).toEqual({ hop: 4, startedAt: NOW });
    expect(nextHop({ hop: MAX_HOPS - 1, startedAt: NOW }, NOW)).toEqual({ hop: MAX_HOPS, startedAt: NOW });
    expect(nextHop({ hop: MAX_HOPS, startedAt: NOW }, NOW)).toEqual({
      refused: `the hand-over chain is past ${MAX_HOPS} hops (${MAX_HOPS + 1})`,
    });
    expect(nextHop({ hop: 1, startedAt: NOW - MAX_CHAIN_MS - 1 }, NOW)).toMatchObject({
      refused: /older than a day/,
    });
    expect(chainRefusal({ hop: MAX_HOPS + 5, startedAt: NOW }, NOW)).toMatch(/past 320 hops/);
    expect(chainRefusal({ hop: 2, startedAt: NOW + 3_600_000 }, NOW)).toMatch(/future/);
    expect(chainRefusal({ hop: 2, startedAt: NOW - 60_000 }, NOW)).toBeUndefined();
  });

  it('hands over as the next hop, and sends nothing past the bound', async () => {
    const sent: unknown[] = [];
    const warned: unknown[] = [];
    const scan = {
      invoker: { handOver: async (shard: unknown, chain: unknown) => void sent.push({ shard, chain }) },
      log: { warn: (message: string, fields?: unknown) => void warned.push({ message, fields }) },
    } as unknown as Parameters<typeof handOverNext>[0];
    await handOverNext(scan, SHARD, { hop: 4, startedAt: NOW - 1000 }, NOW);
    expect(sent).toEqual([{ shard: SHARD, chain: { hop: 5, startedAt: NOW - 1000 } }]);
    await handOverNext(scan, SHARD, { hop: MAX_HOPS, startedAt: NOW }, NOW);
    expect(sent).toHaveLength(1);
    expect(warned).toEqual([
      {
        message: 'hand-over refused; the minute schedule starts a fresh loop',
        fields: { shard: SHARD, reason: expect.stringMatching(/past 320 hops/) },
      },
    ]);
  });
});

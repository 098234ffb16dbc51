// Owns the bound on the scanner's hand-over chain: each hand-over event carries its hop count and when the chain
// started, and a chain past either bound is refused (not sent, and not run when received). The minute schedule then
// starts a fresh chain, so a refusal delays a loop by a minute at most, while a runaway self-invocation stops.

/** Where a loop stands in its chain of hand-overs. */
export interface HandOverChain {
  /** Hand-overs since the loop the schedule, a wake-up or a shard's start began (0 for that loop). */
  hop: number;
  /** When that first loop began (epoch ms). */
  startedAt: number;
}

/** A day of loops (each holds up to five minutes): a busy service's chain is restarted by the schedule daily. */
export const MAX_CHAIN_MS = 24 * 3600 * 1000;
/** More hops than a day of five-minute loops could make, so a chain of too-short loops is stopped too. */
export const MAX_HOPS = 320;

const isChain = (hop: unknown, startedAt: unknown): boolean =>
  Number.isInteger(hop) && (hop as number) >= 0 && Number.isInteger(startedAt) && (startedAt as number) > 0;

/** The chain an event continues: a hand-over's own, or a new one starting now. */
export const chainOf = (event: unknown, now: number): HandOverChain => {
  if (typeof event === 'object' && event !== null && 'hop' in event && 'chainStart' in event) {
    const { hop, chainStart } = event;
    if (isChain(hop, chainStart)) return { hop: hop as number, startedAt: chainStart as number };
  }
  return { hop: 0, startedAt: now };
};

/** Why a chain may go no further, or undefined while it is within its bounds. */
export const chainRefusal = (chain: HandOverChain, now: number): string | undefined => {
  if (chain.hop > MAX_HOPS) return `the hand-over chain is past ${MAX_HOPS} hops (${chain.hop})`;
  if (now - chain.startedAt > MAX_CHAIN_MS) return 'the hand-over chain is older than a day';
  if (chain.startedAt > now + 60_000) return 'the hand-over chain starts in the future';
  return undefined;
};

/** The next hop of a chain, or the reason it is refused. */
export const nextHop = (chain: HandOverChain, now: number): HandOverChain | { refused: string } => {
  const next = { hop: chain.hop + 1, startedAt: chain.startedAt };
  const refused = chainRefusal(next, now);
  return refused === undefined ? next : { refused };
};

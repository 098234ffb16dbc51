// Owns waiting in tests and benches: reading again until a condition holds or the time is up, and the one pause for
// real time a real peer needs (a socket timeout, an outage's length). No test sleeps any other way.

/** Real time that must pass for a real peer, never a stand-in for polling (use pollUntil or vi.waitFor). */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads until `done(value)` holds or `timeoutMs` pass, and returns the last value either way, so the test's own
 * assertion says what was wrong instead of a bare timeout. Usable outside vitest (the benches share it).
 */
export const pollUntil = async <T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await pause(intervalMs);
  }
};

// Owns undoing what a test started (servers, sessions, scanners): queued as the test goes, run after it.
import { afterEach } from 'vitest';

/** Clean-ups a test queues as it starts things; run after each test, last queued first. */
export const cleanupsAfterEach = (): (() => Promise<void>)[] => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
};

// Owns how many mailbox logins run at once: a loop's first sweep logs in to every account of its shard together.
import type { MailboxConnector } from './scannerPorts';

/**
 * Connections a scanner opens at once. A login to a real provider is some ten round trips on the wire (TLS, ID,
 * AUTHENTICATE, NAMESPACE, ENABLE), time spent waiting, not computing: a small bound made a first sweep a staircase
 * of waves of those waits (the scale bench's first sweep over TLS + delay). A default-sized shard logs in at once; a
 * bound stays because an unbounded crowd of handshakes on a loaded machine once ran into greeting timeouts
 * (BENCHMARKS.md, "Design changes the goals made").
 */
const LOGINS_AT_ONCE = 100;

/** The same connector, with at most `limit` of its opens (connect, greeting, login) in flight. */
export const boundedLogins = (connector: MailboxConnector, limit = LOGINS_AT_ONCE): MailboxConnector => {
  let running = 0;
  const waiting: (() => void)[] = [];
  const turn = async () => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
  };
  const done = () => {
    running--;
    waiting.shift()?.();
  };
  const bounded: MailboxConnector = {
    open: async (credentials, signal) => {
      await turn();
      try {
        if (signal?.aborted) throw new Error('scanner closing');
        return await connector.open(credentials, signal);
      } finally {
        done();
      }
    },
  };
  // The watch methods stay as they are: Watches bounds its own opens.
  if (connector.watch) bounded.watch = connector.watch.bind(connector);
  if (connector.watchAll) bounded.watchAll = connector.watchAll.bind(connector);
  return bounded;
};

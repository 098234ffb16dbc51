// Owns how many mailbox logins run at once: a loop's first sweep logs in to every account of its shard together.
import type { MailboxConnector } from './ports';

/**
 * Connections a scanner opens at once. Two hundred at once made the server's login processes and this process's
 * TLS and parsing queue up until greeting timeouts failed sweeps; a bounded queue keeps each login short, and a
 * higher bound bought nothing measurable on the scale bench (BENCHMARKS.md, "Design changes the goals made").
 */
const LOGINS_AT_ONCE = 24;

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

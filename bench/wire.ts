// Benchmark support: the wires the shard sections reach their mailboxes over, loopback plain as the stack serves it,
// or through a delay proxy adding a provider's round trip (over the stack's TLS listener, trusting its test CA).
import { startDelayProxy } from '../scripts/lib/delayProxy';
import { IMAPS, stackCaFile } from '../scripts/lib/mailStack';
import type { AccountEntry } from '../shared/local/localConfig';

/** The round trip to a provider's nearest region that the delayed wire adds. */
const PROVIDER_RTT_MS = 40;

export interface Wire {
  /** `plain`, or `tls+40ms`: the label the figures carry. */
  label: string;
  accounts: AccountEntry[];
  /** The CA the scanner must trust to reach the accounts (IMAP_CA_FILE). */
  caFile?: string;
  close(): Promise<void>;
}

export const plainWire = (accounts: AccountEntry[]): Wire => ({
  label: 'plain',
  accounts,
  close: async () => undefined,
});

/** The accounts reached through a delay proxy in front of `target` (every account on that one server). */
const delayedWire = async (
  accounts: AccountEntry[],
  target: { host: string; port: number },
  options: { secure: boolean; rttMs?: number; caFile?: string },
): Promise<Wire> => {
  const rttMs = options.rttMs ?? PROVIDER_RTT_MS;
  const proxy = await startDelayProxy({ target, rttMs });
  return {
    label: `${options.secure ? 'tls' : 'plain'}+${rttMs}ms`,
    accounts: accounts.map((account) => ({
      ...account,
      imap: { host: proxy.host, port: proxy.port, secure: options.secure },
    })),
    ...(options.caFile ? { caFile: options.caFile } : {}),
    close: () => proxy.close(),
  };
};

/** The mail stack's accounts over TLS (Dovecot's IMAPS listener), a provider's round trip away. */
export const stackTlsWire = (accounts: AccountEntry[], rttMs = PROVIDER_RTT_MS): Promise<Wire> =>
  delayedWire(accounts, IMAPS, { secure: true, rttMs, caFile: stackCaFile() });

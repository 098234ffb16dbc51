// Owns DNS on node:dns: the resolver port answered by c-ares, through the system's resolver (on AWS the function's)
// or the servers named in the settings (the loopback test server). One c-ares channel per check's abort signal, so
// a spent budget cancels that check's queries and no other's.
import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsRecordTypes, DnsResolverPort, DnsType } from '../../audit';
import { rawDnsQuery } from './rawDnsQuery';

export interface NodeDnsOptions {
  /** `ip` or `ip:port`; unset means the system's resolver. */
  servers?: readonly string[];
  /** Per query attempt; the check's budget bounds the whole. */
  timeoutMs?: number;
}

const noneCodes: Record<string, 'nxdomain' | 'nodata'> = { ENOTFOUND: 'nxdomain', ENODATA: 'nodata' };

const ask = async (resolver: Resolver, name: string, type: DnsType): Promise<unknown[]> => {
  switch (type) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((strings) => strings.join(''));
    case 'MX':
      return resolver.resolveMx(name);
    // resolvePtr, never reverse(): c-ares's reverse() answers from /etc/hosts first.
    case 'PTR':
      return resolver.resolvePtr(name);
  }
};

export const nodeDnsResolver = (options: NodeDnsOptions = {}): DnsResolverPort => {
  const channels = new WeakMap<AbortSignal, Resolver>();
  const channelFor = (signal: AbortSignal) => {
    const known = channels.get(signal);
    if (known) return known;
    const resolver = new Resolver({ timeout: options.timeoutMs ?? 1000, tries: 2 });
    if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
    signal.addEventListener('abort', () => resolver.cancel(), { once: true });
    channels.set(signal, resolver);
    return resolver;
  };
  return {
    async query<T extends DnsType>(name: string, type: T, signal: AbortSignal) {
      if (signal.aborted) return { kind: 'unknown', reason: 'DNS unknown: the budget was spent' };
      try {
        const records = (await ask(channelFor(signal), name, type)) as DnsRecordTypes[T][];
        return { kind: 'records', records } satisfies DnsAnswer<DnsRecordTypes[T]>;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        // c-ares sends only host-name characters; DNS carries any (an SPF macro's name): ask without it.
        if (code === 'EBADNAME') {
          const servers = channelFor(signal).getServers();
          const raw = await rawDnsQuery(name, type, servers, options.timeoutMs ?? 1000, signal);
          return raw as DnsAnswer<DnsRecordTypes[T]>;
        }
        const none = typeof code === 'string' ? noneCodes[code] : undefined;
        if (none) return { kind: 'none', reason: none };
        return {
          kind: 'unknown',
          reason: `DNS unknown: ${typeof code === 'string' ? code : 'lookup failed'}`,
        };
      }
    },
  };
};

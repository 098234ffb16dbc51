// Owns the one query c-ares will not send: a name with characters outside host names (":" "%" " ", which DNS carries,
// RFC 2181 section 11, and SPF macros produce). One UDP question per server with dns-packet, bounded by a timeout
// and the check's abort signal; the answer read as node:dns would give it.
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { type Answer, decode, encode } from 'dns-packet';
import type { DnsAnswer, DnsType } from '../../audit';
import { startTimer } from '../../domain/timer';

/** `ip`, `ip:port` or `[ip6]:port`, as node:dns's getServers gives them. */
const hostAndPort = (server: string): [string, number] => {
  if (isIP(server)) return [server, 53];
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(server);
  if (bracket) return [bracket[1] ?? '', Number(bracket[2])];
  const at = server.lastIndexOf(':');
  return [server.slice(0, at), Number(server.slice(at + 1))];
};

const recordOf = (answer: Answer): unknown => {
  if (answer.type === 'TXT') {
    const data = Array.isArray(answer.data) ? answer.data : [answer.data];
    return data.map((part) => (typeof part === 'string' ? part : part.toString('latin1'))).join('');
  }
  if (answer.type === 'MX') return { exchange: answer.data.exchange, priority: answer.data.preference };
  return 'data' in answer ? answer.data : undefined;
};

const exchange = (server: string, question: Buffer, timeoutMs: number, signal: AbortSignal) =>
  new Promise<Buffer>((resolve, reject) => {
    const [host, port] = hostAndPort(server);
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    const done = (error: Error | undefined, reply?: Buffer) => {
      timer.cancel();
      signal.removeEventListener('abort', abort);
      socket.close();
      if (reply) resolve(reply);
      else reject(error);
    };
    const abort = () => done(new Error('aborted'));
    const timer = startTimer(timeoutMs, () => done(new Error('timeout')));
    signal.addEventListener('abort', abort, { once: true });
    socket.on('error', (error) => done(error));
    socket.on('message', (reply) => done(undefined, reply));
    socket.send(question, port, host);
  });

/** Asks the first server for the name's records of one type. Never throws. */
export const rawDnsQuery = async (
  name: string,
  type: DnsType,
  servers: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<DnsAnswer<unknown>> => {
  const server = servers[0];
  if (server === undefined) return { kind: 'unknown', reason: 'DNS unknown: no server to ask' };
  const id = Math.floor(Math.random() * 65_536);
  const question = encode({ type: 'query', id, flags: 256, questions: [{ type, name, class: 'IN' }] });
  try {
    // dns-packet's types leave out the response code it decodes.
    const reply = decode(await exchange(server, question, timeoutMs, signal)) as ReturnType<typeof decode> & {
      rcode?: string;
    };
    if (reply.id !== id) return { kind: 'unknown', reason: 'DNS unknown: a reply to another question' };
    if (reply.rcode === 'NXDOMAIN') return { kind: 'none', reason: 'nxdomain' };
    if (reply.rcode !== 'NOERROR')
      return { kind: 'unknown', reason: `DNS unknown: ${reply.rcode ?? 'no code'}` };
    const records = (reply.answers ?? []).filter((answer) => answer.type === type).map(recordOf);
    return records.length > 0 ? { kind: 'records', records } : { kind: 'none', reason: 'nodata' };
  } catch (error) {
    return { kind: 'unknown', reason: `DNS unknown: ${(error as Error).message}` };
  }
};

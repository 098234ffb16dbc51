// The detection benchmark's counting proxy: which client lines are IMAP commands, across chunk boundaries and past
// literals, and that it forwards both ways untouched while counting.
import { once } from 'node:events';
import { createConnection, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { commandCounter, startImapCounter } from '../../bench/imapCounter';

const countOf = (chunks: string[]) => {
  const names: string[] = [];
  const count = commandCounter((name) => names.push(name));
  for (const chunk of chunks) count(Buffer.from(chunk, 'latin1'));
  return names;
};

describe('the IMAP command counter', () => {
  it('counts tagged command lines, logins and IDLE included, and not the DONE that ends an IDLE', () => {
    expect(
      countOf(['A1 LOGIN user pass\r\nA2 LIST "" "*" RETURN (STATUS (UIDNEXT))\r\n', 'A3 IDLE\r\nDONE\r\n']),
    ).toEqual(['LOGIN', 'LIST', 'IDLE']);
  });

  it('joins a line split across chunks and counts it once', () => {
    expect(countOf(['A1 NO', 'OP\r', '\nA2 LOG', 'OUT\r\n'])).toEqual(['NOOP', 'LOGOUT']);
  });

  it('skips literal data, even data that looks like commands', () => {
    const literal = 'X1 FAKE one\r\nX2 FAKE two\r\n';
    expect(countOf([`A1 APPEND INBOX {${literal.length}+}\r\n${literal}\r\nA2 NOOP\r\n`])).toEqual([
      'APPEND',
      'NOOP',
    ]);
  });

  it('forwards bytes both ways unchanged and counts what the client sent', async () => {
    const upstream = createServer((socket) => {
      socket.write('* OK ready\r\n');
      socket.on('data', (chunk: Buffer) => socket.write(`echo ${chunk.toString()}`));
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const address = upstream.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const counter = await startImapCounter({ host: '127.0.0.1', port });
    const client = createConnection({ host: '127.0.0.1', port: counter.port });
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await once(client, 'connect');
    client.write('A1 NOOP\r\n');
    await expect.poll(() => received).toBe('* OK ready\r\necho A1 NOOP\r\n');
    expect(counter.commands.map(({ name }) => name)).toEqual(['NOOP']);
    expect(counter.connections).toBe(1);
    client.destroy();
    await counter.close();
    upstream.close();
  });
});

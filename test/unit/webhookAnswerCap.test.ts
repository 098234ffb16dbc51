// The webhook answer read stops at its 4,096-byte cap: against a receiver on loopback that streams 50 MB as fast as
// it can, the sender's socket takes no more than the answer's head, the cap and a step (READ_STEP_BYTES) from the
// kernel, where a socket's own 64 KB reads took 65,536 bytes at once.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type NetConnectOpts, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_STEP_BYTES, SafePoster } from '../../shared/adapters/webhook/SafePoster';

const ANSWER_CAP = 4096;
const STREAM_BYTES = 50 * 1024 * 1024;

let stop: (() => void) | undefined;
afterEach(() => stop?.());

describe('the webhook answer cap', () => {
  it('reads a 50 MB streaming answer only to its cap, in steps', async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < STREAM_BYTES && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
        return undefined;
      };
      pump();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    stop = () => {
      server.closeAllConnections();
      server.close();
    };
    const sockets: Socket[] = [];
    const poster = new SafePoster({
      policy: { allowLoopbackHttp: true },
      // The real connect, with every option the sender gives it (its read buffer among them); only recorded.
      connect: (options) => {
        const socket = connect(options as unknown as NetConnectOpts);
        sockets.push(socket);
        return socket;
      },
    });
    const outcome = await poster.post(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      {},
      '{}',
    );
    const bytesRead = sockets[0]?.bytesRead ?? Number.NaN;
    console.info(
      `webhook answer cap figure ${JSON.stringify({ streamed: STREAM_BYTES, bytesRead, answerCap: ANSWER_CAP })}`,
    );
    expect(outcome).toEqual({ status: 200 });
    expect(sockets).toHaveLength(1);
    // The head of the answer (well under a step here), the cap, and at most one step more.
    expect(bytesRead).toBeGreaterThan(ANSWER_CAP);
    expect(bytesRead).toBeLessThanOrEqual(ANSWER_CAP + 2 * READ_STEP_BYTES);
  });
});

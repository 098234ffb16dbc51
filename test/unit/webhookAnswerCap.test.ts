// The webhook answer read stops at its 4,096-byte cap: against a receiver on loopback that streams 50 MB as fast as
// it can, the sender's socket takes exactly 4,096 bytes from the kernel over plain HTTP (the answer's head and body
// together: each read's buffer is the room left), where a socket's own 64 KB reads took 65,536 bytes at once. Over
// TLS the records must be read whole: beyond what the same receiver's short answer costs (the handshake), the socket
// takes at most the cap, one TLS record (16 KB of plaintext and its framing) and a read step.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type NetConnectOpts, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSimulationTls } from '../../bench/simulationTls';
import { READ_STEP_BYTES, SafePoster } from '../../shared/adapters/webhook/SafePoster';

const ANSWER_CAP = 4096;
const STREAM_BYTES = 50 * 1024 * 1024;
/** The most plaintext one TLS record carries, and the most its header, padding and tag add (RFC 8446 5.2). */
const TLS_RECORD_BYTES = 16_384 + 256 + 5;

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A receiver that streams STREAM_BYTES as fast as the socket takes them (`/hook`), or answers `ok` (`/short`). */
const streaming: RequestListener = (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  if (req.url === '/short') return void res.end('ok');
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (written < STREAM_BYTES && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
};

const listening = async (server: ReturnType<typeof createServer>) => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stops.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
};

/** POSTs to `url` with the real connect, recorded: the outcome and the bytes its TCP socket read. */
const postRecorded = async (url: string, ca?: string) => {
  const sockets: Socket[] = [];
  const poster = new SafePoster({
    policy: { allowLoopbackHttp: true },
    ...(ca === undefined ? {} : { ca }),
    // The real connect, with every option the sender gives it (its read buffers among them); only recorded.
    connect: (options) => {
      const socket = connect(options as unknown as NetConnectOpts);
      sockets.push(socket);
      return socket;
    },
  });
  const outcome = await poster.post(url, {}, '{}');
  expect(sockets).toHaveLength(1);
  return { outcome, bytesRead: sockets[0]?.bytesRead ?? Number.NaN };
};

describe('the webhook answer cap', () => {
  it('reads a 50 MB streaming answer over plain HTTP to exactly its cap', async () => {
    const port = await listening(createServer(streaming));
    const { outcome, bytesRead } = await postRecorded(`http://127.0.0.1:${port}/hook`);
    console.info(
      `webhook answer cap figure ${JSON.stringify({ transport: 'http', streamed: STREAM_BYTES, bytesRead, answerCap: ANSWER_CAP })}`,
    );
    expect(outcome).toEqual({ status: 200 });
    expect(bytesRead).toBe(ANSWER_CAP);
  });

  it('reads a short answer whole', async () => {
    const port = await listening(createServer(streaming));
    const { outcome, bytesRead } = await postRecorded(`http://127.0.0.1:${port}/short`);
    expect(outcome).toEqual({ status: 200 });
    expect(bytesRead).toBeLessThan(ANSWER_CAP);
  });

  it('reads a 50 MB streaming answer over TLS to the cap, a TLS record and a step past the handshake', async () => {
    const tls = makeSimulationTls();
    stops.push(() => tls.dispose());
    const server = createHttpsServer(
      { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) },
      streaming,
    );
    const port = await listening(server);
    const ca = readFileSync(tls.caFile, 'latin1');
    const short = await postRecorded(`https://127.0.0.1:${port}/short`, ca);
    const { outcome, bytesRead } = await postRecorded(`https://127.0.0.1:${port}/hook`, ca);
    const pastHandshake = bytesRead - short.bytesRead;
    console.info(
      `webhook answer cap figure ${JSON.stringify({ transport: 'tls', streamed: STREAM_BYTES, bytesRead, shortAnswerBytesRead: short.bytesRead, pastHandshake, answerCap: ANSWER_CAP })}`,
    );
    expect(short.outcome).toEqual({ status: 200 });
    expect(outcome).toEqual({ status: 200 });
    expect(pastHandshake).toBeGreaterThan(ANSWER_CAP);
    expect(pastHandshake).toBeLessThanOrEqual(ANSWER_CAP + TLS_RECORD_BYTES + READ_STEP_BYTES);
  });
});

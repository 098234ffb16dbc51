// A loopback port that nothing listens on: bound once by the OS to find a free one, then released.
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

export const freePort = async (): Promise<number> => {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

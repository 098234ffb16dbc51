// Owns the embedded dynalite that stands in for DynamoDB on this machine, persisted on disk when given a path.
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export const startDynalite = async (options: {
  path?: string;
  port?: number;
  host?: string;
}): Promise<LocalDynamo> => {
  const host = options.host ?? '127.0.0.1';
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

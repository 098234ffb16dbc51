// The baseline of the API benchmark's GET ratio: a bare `node:http` server, in a process of its own as `npm start`
// is, reading the same check items from the same local store (the running service's dynalite, published in its
// DATA_DIR) with the same store class, and answering them as JSON. No auth, no middy, no validation, no mapping:
// what a GET costs on this machine before the service adds anything. Driven by bench/api.ts.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { LOCAL_REGION, LOCAL_TABLE } from '../shared/local/localStore';

const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) throw new Error('BENCH_DATA_DIR (the DATA_DIR of a running npm start) is not set');
const { endpoint } = JSON.parse(readFileSync(join(dataDir, 'dynalite.json'), 'utf8')) as { endpoint: string };
const client = createDocumentClient({ region: LOCAL_REGION, endpoint });
const store = new DynamoCheckStore(client, LOCAL_TABLE, new DynamoShardLayout(client, LOCAL_TABLE));

const server = createServer((request, response) => {
  const id = /^\/api\/spam-check\/([^/?]+)$/.exec(request.url ?? '')?.[1];
  const answer = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (!id) return answer(404, { detail: 'Not found' });
  store.get(id).then(
    (check) => (check ? answer(200, check) : answer(404, { detail: 'Not found' })),
    () => answer(500, { detail: 'Internal error' }),
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address)
    process.stdout.write(`bare server listening on http://127.0.0.1:${address.port}\n`);
});

// Owns running dynalite on its own thread for `npm start`: the API's event loop then does no database work, as on AWS.
// Plain JavaScript so the thread starts without a TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import './levelIterators.mjs';

const server = dynalite({ ...workerData.options, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.once('error', (error) => parentPort.postMessage({ error: error.message }));
server.listen(workerData.port, workerData.host, () =>
  parentPort.postMessage({ port: server.address().port }),
);
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => parentPort.close());
});

// Owns AWS's own DynamoDB Local for the tests and the bench: the jar npm `amplify-dynamodb-simulator` ships, run on
// Java in memory on a free port, and stopped afterwards. It has no option to choose its interface and listens on all
// of them, so it lives only as long as the run, in memory, with telemetry off; clients reach it on 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { freePort } from './freePort';
import { pause } from './poll';

export interface DynamoLocal {
  endpoint: string;
  /** The JVM's process id (the bench reads its CPU). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const emulatorDir = () =>
  join(
    dirname(createRequire(import.meta.url).resolve('amplify-dynamodb-simulator/package.json')),
    'emulator',
  );

/** `startWithinMs`: how long the JVM may take to answer (a crowded machine's bench waits longer than a test). */
export const startDynamoLocal = async (startWithinMs = 60_000): Promise<DynamoLocal> => {
  const port = await freePort();
  const dir = emulatorDir();
  const child: ChildProcess = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDocumentClient({ region: 'local', endpoint });
  const deadline = Date.now() + startWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited at start: ${output.trim()}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `DynamoDB Local did not answer within ${startWithinMs / 1000} s: ${(error as Error).message}\n${output}`,
        );
      }
      await pause(200);
    }
  }
  client.destroy();
  return {
    endpoint,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
};

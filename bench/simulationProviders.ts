// Benchmark support for bench/simulation.ts: a simulated provider (bench/simulatedProvider.ts) as a process of its
// own, so the shards' IMAP peers do not share the bench's event loop.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SimulationTls } from './simulationTls';

/** A simulated provider process; its proxy's port once it listens. */
export const startProvider = async (rttMs: number, tls: SimulationTls | undefined) => {
  const child = spawn(
    join(import.meta.dirname, '../node_modules/.bin/tsx'),
    [join(import.meta.dirname, 'simulatedProvider.ts')],
    {
      env: {
        ...process.env,
        SIM_RTT_MS: String(rttMs),
        ...(tls ? { SIM_TLS_KEY: tls.keyFile, SIM_TLS_CERT: tls.certFile } : {}),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`a simulated provider exited with ${code}`);
    }),
  ])) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return {
    port,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
};

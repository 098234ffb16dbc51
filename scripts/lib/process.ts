// Runs the repository's own entry points as child processes, the way a person runs them from the README.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Node itself with tsx as a loader, never the tsx CLI: the CLI runs the entry in a child of its own, so a SIGKILL
 * sent to it would leave the real process running (holding a lease or a data folder).
 */
export const spawnNode = (
  entry: string,
  args: string[],
  env: Record<string, string>,
  /** Modules loaded before the entry (after tsx), e.g. a benchmark's hook. */
  preload: readonly string[] = [],
) =>
  spawn(
    process.execPath,
    ['--import', 'tsx', ...preload.flatMap((module) => ['--import', module]), entry, ...args],
    {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    },
  );

export interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Resolves with the exit code (null when the signal killed it); SIGTERM unless told. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns the entry and resolves once `ready` matches its output (or rejects with what it printed). */
export const spawnEntry = async (
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<Started & { match: RegExpMatchArray }> => {
  const child = spawnNode(entry, [], env);
  let text = '';
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not become ready:\n${text}`)), 30_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const found = text.match(ready);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${text}`));
    });
  });
  return {
    child,
    match,
    output: () => text,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit') as Promise<[number | null]>;
      child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
};

export const runEntry = (entry: string, args: string[], env: Record<string, string>) =>
  runEntryWithStdin(entry, args, env, '');

/** Runs an entry to its end with `stdin` piped in, as `echo … | npm run …` would. */
export const runEntryWithStdin = async (
  entry: string,
  args: string[],
  env: Record<string, string>,
  stdin: string,
) => {
  const child = spawnNode(entry, args, env);
  child.stdin.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
};

// Benchmark support for bench/simulation.ts: whose CPU a stretch of the run was (the shard processes, the simulated
// providers, DynamoDB Local, the machine as a whole), read from /proc for each process and its descendants.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports process times in hundredths of a second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** `pid` and every process below it. */
const treeOf = (pid: number): number[] => {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone meanwhile
  }
  const children = tasks.flatMap((task) =>
    read(`/proc/${pid}/task/${task}/children`).trim().split(' ').filter(Boolean).map(Number),
  );
  return [pid, ...children.flatMap(treeOf)];
};

/** User plus system CPU of one process so far, in milliseconds (0 once it is gone). */
const cpuOf = (pid: number): number => {
  const stat = read(`/proc/${pid}/stat`);
  // The command name may hold spaces and parentheses: the fields are counted after its last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * (1000 / TICKS_PER_SECOND);
};

/**
 * The CPU of `pids` and all their descendants so far, in milliseconds; a process that has exited keeps the CPU it
 * was last seen with (`seen`, by process id), so a group's total never falls when one of its processes ends.
 */
const treeCpu = (pids: number[], seen: Map<number, number>) => {
  // CPU only grows: a read that finds the process gone between listing and reading keeps what was seen before.
  for (const pid of pids)
    for (const member of treeOf(pid)) seen.set(member, Math.max(seen.get(member) ?? 0, cpuOf(member)));
  let sum = 0;
  for (const cpu of seen.values()) sum += cpu;
  return sum;
};

/** The whole machine's busy and total time so far, in milliseconds of CPU. */
const machine = () => {
  const fields = (read('/proc/stat').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + (value || 0), 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: (total - idle) * (1000 / TICKS_PER_SECOND), total: total * (1000 / TICKS_PER_SECOND) };
};

type Groups = Record<string, number[]>;

interface Sample {
  at: number;
  cpu: Record<string, number>;
  busy: number;
  total: number;
}

/** Samples the CPU of each group of processes every `everyMs` until stopped. */
export const sampleCpu = (groups: () => Groups, everyMs = 250) => {
  const samples: Sample[] = [];
  const seen = new Map<string, Map<number, number>>();
  const seenIn = (name: string) => seen.get(name) ?? seen.set(name, new Map()).get(name) ?? new Map();
  const take = () => {
    const cpu = Object.fromEntries(
      Object.entries(groups()).map(([name, pids]) => [name, treeCpu(pids, seenIn(name))]),
    );
    samples.push({ at: performance.now(), cpu, ...machine() });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    take,
    stop: () => clearInterval(timer),
    /**
     * CPU milliseconds each group spent over `windows` (each from the sample nearest its start to the one nearest its
     * end), their wall time, and the machine's busy share over them.
     */
    over(windows: [number, number][]) {
      const nearest = (at: number) =>
        samples.reduce((best, sample) => (Math.abs(sample.at - at) < Math.abs(best.at - at) ? sample : best));
      const cpuMs: Record<string, number> = {};
      let [wallMs, busy, total] = [0, 0, 0];
      for (const [from, to] of windows) {
        const [start, end] = [nearest(from), nearest(to)];
        for (const name of Object.keys(end.cpu))
          cpuMs[name] = (cpuMs[name] ?? 0) + (end.cpu[name] ?? 0) - (start.cpu[name] ?? 0);
        wallMs += end.at - start.at;
        busy += end.busy - start.busy;
        total += end.total - start.total;
      }
      return {
        wallMs: Math.round(wallMs),
        cpuMs: Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, Math.round(ms)])),
        machineBusyShare: Math.round((busy / Math.max(total, 1)) * 100) / 100,
      };
    },
  };
};

/**
 * Resolves once the machine's busy share over the last `windowMs` is at most `share`, or after `atMostMs`: the
 * shards before have their watches' logins to finish, work their own Lambdas would do on their own CPU.
 */
export const machineQuiet = async (share = 0.6, windowMs = 500, atMostMs = 10_000) => {
  const began = performance.now();
  let last = machine();
  while (performance.now() - began < atMostMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = machine();
    const busy = (now.busy - last.busy) / Math.max(now.total - last.total, 1);
    last = now;
    if (busy <= share) return Math.round(performance.now() - began);
  }
  return Math.round(performance.now() - began);
};

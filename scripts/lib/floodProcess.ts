// A flood of GETs at a steady rate, as a process of its own so its sending never shares an event loop with the
// client whose latency a test measures. Told what to send by the JSON file FLOOD_FILE names; "on" and "off" lines on
// stdin switch it, and each "off" answers one JSON line of what was sent and how the server answered.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

export interface FloodSpec {
  baseUrl: string;
  floods: { name: string; perSecond: number; path: string; keys: string[] }[];
}

/** Requests of one flood waiting for an answer at most; past it a tick's share is skipped and counted. */
const MAX_OUTSTANDING = 64;
const TICK_MS = 10;
const SETTLE_MS = 2000;

const spec = JSON.parse(readFileSync(process.env.FLOOD_FILE ?? '', 'utf8')) as FloodSpec;
const agent = new Agent({ keepAlive: true, maxSockets: MAX_OUTSTANDING * spec.floods.length });
const url = new URL(spec.baseUrl);

const floods = spec.floods.map((flood) => ({
  ...flood,
  due: 0,
  outstanding: 0,
  next: 0,
  counts: { sent: 0, skipped: 0, errors: 0 } as Record<string, number>,
}));

const send = (flood: (typeof floods)[number]) => {
  const key = flood.keys[flood.next++ % flood.keys.length];
  flood.outstanding++;
  flood.counts.sent = (flood.counts.sent ?? 0) + 1;
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path: flood.path,
      method: 'GET',
      agent,
      headers: { authorization: `Bearer ${key}` },
    },
    (res) => {
      res.resume();
      res.on('end', () => {
        flood.outstanding--;
        const status = String(res.statusCode);
        flood.counts[status] = (flood.counts[status] ?? 0) + 1;
      });
    },
  );
  req.on('error', () => {
    flood.outstanding--;
    flood.counts.errors = (flood.counts.errors ?? 0) + 1;
  });
  req.end();
};

let timer: NodeJS.Timeout | undefined;
let onSince = 0;

// Paced by the time since "on", not by ticks, so a late timer catches up instead of lowering the rate.
const tick = () => {
  const elapsed = Date.now() - onSince;
  for (const flood of floods) {
    const owed = Math.floor((flood.perSecond * elapsed) / 1000);
    for (; flood.due < owed; flood.due++) {
      if (flood.outstanding >= MAX_OUTSTANDING) flood.counts.skipped = (flood.counts.skipped ?? 0) + 1;
      else send(flood);
    }
  }
};

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'on' && !timer) {
    onSince = Date.now();
    for (const flood of floods) {
      flood.counts = { sent: 0, skipped: 0, errors: 0 };
      flood.due = 0;
    }
    timer = setInterval(tick, TICK_MS);
  } else if (line === 'off' && timer) {
    clearInterval(timer);
    timer = undefined;
    const seconds = (Date.now() - onSince) / 1000;
    // The answers still on their way count too; a request still unanswered after SETTLE_MS stays out.
    const settleBy = Date.now() + SETTLE_MS;
    const report = () => {
      if (floods.some((flood) => flood.outstanding > 0) && Date.now() < settleBy) {
        setTimeout(report, TICK_MS);
        return;
      }
      const counts = floods.map((flood) => [flood.name, { ...flood.counts, seconds }]);
      process.stdout.write(`${JSON.stringify(Object.fromEntries(counts))}\n`);
    };
    report();
  } else if (line === 'exit') {
    agent.destroy();
    process.exit(0);
  }
});
process.stdout.write('ready\n');

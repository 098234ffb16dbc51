// The scanner's after-traffic bake on an injected clock: the new version passes only with a heartbeat and no error
// over the whole bake, fails at the first error, and the CloudWatch reader asks for the version's own errors.
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import {
  type BakeReadings,
  bakeScanner,
  cloudWatchBakeReader,
} from '../../shared/adapters/deploy/scannerBake';

const MINUTE = 60_000;

/** A clock the bake's sleeps move, and readings by the minute the window has reached. */
const rig = (readingAt: (elapsedMs: number) => BakeReadings) => {
  let now = 1_000_000;
  const start = now;
  const reads: number[] = [];
  return {
    reads,
    deps: {
      clock: {
        now: () => now,
        sleep: async (ms: number) => {
          now += ms;
        },
      },
      read: async (from: number, to: number) => {
        expect(from).toBe(start);
        reads.push(to - from);
        return readingAt(to - from);
      },
    },
    options: { bakeMs: 10 * MINUTE, pollMs: MINUTE, deadlineMs: start + 14 * MINUTE },
  };
};

describe('the scanner bake', () => {
  it('passes after the whole bake with heartbeats and no error', async () => {
    const { deps, options, reads } = rig((elapsed) => ({ heartbeats: elapsed / MINUTE, errors: 0 }));
    expect(await bakeScanner(deps, options)).toEqual({
      passed: true,
      readings: { heartbeats: 10, errors: 0 },
    });
    expect(reads.at(-1)).toBe(10 * MINUTE);
    expect(reads).toHaveLength(11);
  });

  it('fails at the first error, without waiting out the bake', async () => {
    const { deps, options, reads } = rig((elapsed) => ({
      heartbeats: 5,
      errors: elapsed >= 3 * MINUTE ? 1 : 0,
    }));
    expect(await bakeScanner(deps, options)).toEqual({
      passed: false,
      reason: 'the new version failed 1 invocation(s)',
    });
    expect(reads.at(-1)).toBe(3 * MINUTE);
  });

  it('fails a version that never beats, and ends by the hook deadline', async () => {
    const { deps, options, reads } = rig(() => ({ heartbeats: 0, errors: 0 }));
    const outcome = await bakeScanner(deps, { ...options, deadlineMs: deps.clock.now() + 4 * MINUTE });
    expect(outcome).toEqual({ passed: false, reason: 'no scanner heartbeat in 240 s' });
    expect(reads.at(-1)).toBe(4 * MINUTE);
  });

  it('reads the stage heartbeat and the errors of the new version through the live alias', async () => {
    let input: Record<string, unknown> = {};
    const client = {
      send: async (command: { input: Record<string, unknown> }) => {
        input = command.input;
        return {
          MetricDataResults: [
            { Id: 'heartbeat', Values: [3, 4] },
            { Id: 'errors', Values: [0, 2] },
          ],
        };
      },
    } as unknown as Pick<CloudWatchClient, 'send'>;
    const read = cloudWatchBakeReader(client, {
      namespace: 'InboxPlacement/staging',
      functionName: 'staging-InboxPlacementService-scanner',
      alias: 'live',
      version: '42',
    });
    expect(await read(90_000, 200_000)).toEqual({ heartbeats: 7, errors: 2 });
    const queries = JSON.stringify(input.MetricDataQueries);
    expect(queries).toContain('"Namespace":"InboxPlacement/staging","MetricName":"ScannerHeartbeat"');
    expect(queries).toContain('{"Name":"ExecutedVersion","Value":"42"}');
    expect(queries).toContain('{"Name":"Resource","Value":"staging-InboxPlacementService-scanner:live"}');
    expect(input.StartTime).toEqual(new Date(60_000));
  });
});

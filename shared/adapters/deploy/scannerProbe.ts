// Owns asking one scanner version for its synthetic sweep (a synchronous invocation with the probe event) and
// reading its answer; a version that throws, times out or answers anything else fails the probe.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { DEPLOY_PROBE_EVENT, PROBE_STATUSES, type ProbeOutcome } from '../../scanner/probe';

/** Enough for a login, a folder list and a fetch a folder behind the IMAP timeouts; the hook itself has a minute. */
const PROBE_TIMEOUT_MS = 45_000;

const MAX_ANSWER_BYTES = 4096;

export const probeScannerVersion = async (
  client: LambdaClient,
  versionArn: string,
): Promise<ProbeOutcome> => {
  const answer = await client.send(
    new InvokeCommand({
      FunctionName: versionArn,
      InvocationType: 'RequestResponse',
      Payload: new TextEncoder().encode(JSON.stringify(DEPLOY_PROBE_EVENT)),
    }),
    { abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS) },
  );
  if (answer.FunctionError)
    return { status: 'failed', reason: `the new version failed (${answer.FunctionError})` };
  const payload = answer.Payload ?? new Uint8Array();
  if (payload.byteLength > MAX_ANSWER_BYTES)
    return { status: 'failed', reason: 'the new version answered too much' };
  const notAnOutcome = {
    status: 'failed',
    reason: 'the new version answered something that is not a probe outcome',
  } as const;
  try {
    const outcome = JSON.parse(new TextDecoder().decode(payload)) as Partial<ProbeOutcome> | null;
    const status = PROBE_STATUSES.find((known) => known === outcome?.status);
    if (!outcome || !status) return notAnOutcome;
    const count = (value: unknown) => (typeof value === 'number' ? value : undefined);
    return {
      status,
      account: typeof outcome.account === 'string' ? outcome.account : undefined,
      folders: count(outcome.folders),
      messages: count(outcome.messages),
      reason: typeof outcome.reason === 'string' ? outcome.reason.slice(0, 200) : 'no reason given',
    };
  } catch {
    return notAnOutcome;
  }
};

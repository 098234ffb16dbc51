// The deploy probe: a new scanner version sweeps one account before its alias moves, and CodeDeploy always hears
// how it went, over a request signed as AWS documents it.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { CodeDeployHooks } from '../../shared/adapters/deploy/codeDeployHooks';
import { probeScannerVersion } from '../../shared/adapters/deploy/scannerProbe';
import { signRequest } from '../../shared/adapters/deploy/sigv4';
import { runDeployProbe } from '../../shared/composition/deployProbe';
import { createLogger } from '../../shared/log';
import { isDeployProbe, type ProbeOutcome, sweepOneAccount } from '../../shared/scanner/probe';
import type { MailboxConnector, MailboxCredentials } from '../../shared/scanner/scannerPorts';

const account: MailboxCredentials = {
  email: 'seed@example.com',
  provider: 'imap',
  imap: { host: '127.0.0.1', port: 993, secure: true },
  auth: { user: 'seed', pass: 'never-logged-password' },
  folders: {},
};

const connectorListing = (paths: string[] | Error): MailboxConnector => ({
  open: async () => {
    if (paths instanceof Error) throw paths;
    return {
      gmail: false,
      folders: async () =>
        paths.map((path) => ({ path, flags: [], specialUse: undefined, uidValidity: '1', uidNext: 1 })),
      headersAfter: async () => [],
      headersSince: async () => [],
      tabsOf: async () => new Map(),
      close: async () => undefined,
    };
  },
});

const credentials = { get: async (email: string) => (email === account.email ? account : undefined) };

describe('sweepOneAccount', () => {
  it('passes when the account logs in and a sweep would read its inbox', async () => {
    const outcome = await sweepOneAccount(connectorListing(['INBOX', 'Junk']), credentials, account.email);
    expect(outcome).toMatchObject({ passed: true, account: account.email, folders: 2 });
  });

  it('fails on a login error, with the server text capped to one line, never the password', async () => {
    const refusal = new Error(`login refused\n${'x'.repeat(500)}`);
    const outcome = await sweepOneAccount(connectorListing(refusal), credentials, account.email);
    expect(outcome.passed).toBe(false);
    expect(outcome.reason.length).toBeLessThanOrEqual(200);
    expect(outcome.reason).not.toContain('\n');
    expect(JSON.stringify(outcome)).not.toContain('never-logged-password');
  });

  it('fails without an inbox or without credentials, and passes with nothing registered', async () => {
    expect((await sweepOneAccount(connectorListing(['Archive']), credentials, account.email)).passed).toBe(
      false,
    );
    expect(
      (await sweepOneAccount(connectorListing(['INBOX']), credentials, 'other@example.com')).passed,
    ).toBe(false);
    expect((await sweepOneAccount(connectorListing(new Error('x')), credentials, undefined)).passed).toBe(
      true,
    );
  });

  it('is what the scanner recognises as the probe event, and nothing else is', () => {
    expect(isDeployProbe({ source: 'inbox-placement.scanner', deployProbe: true })).toBe(true);
    for (const event of [{}, { Records: [] }, { handOver: true }, null, 'probe']) {
      expect(isDeployProbe(event)).toBe(false);
    }
  });
});

const lambdaAnswering = (answer: { FunctionError?: string; Payload?: unknown }) => {
  const sent: unknown[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      sent.push(command.input);
      return {
        FunctionError: answer.FunctionError,
        Payload: new TextEncoder().encode(JSON.stringify(answer.Payload ?? null)),
      };
    },
  } as unknown as LambdaClient;
  return { client, sent };
};

describe('probeScannerVersion', () => {
  it('invokes exactly the version being deployed, synchronously, with the probe event', async () => {
    const { client, sent } = lambdaAnswering({ Payload: { passed: true, reason: 'ok', folders: 3 } });
    const outcome = await probeScannerVersion(client, 'arn:aws:lambda:eu-west-1:1:function:scanner:7');
    expect(outcome).toMatchObject({ passed: true, folders: 3 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      FunctionName: 'arn:aws:lambda:eu-west-1:1:function:scanner:7',
      InvocationType: 'RequestResponse',
    });
  });

  it('fails on a function error or an answer that is not an outcome', async () => {
    const crashed = lambdaAnswering({ FunctionError: 'Unhandled', Payload: { passed: true } });
    expect((await probeScannerVersion(crashed.client, 'v')).passed).toBe(false);
    const odd = lambdaAnswering({ Payload: { ok: 1 } });
    expect((await probeScannerVersion(odd.client, 'v')).passed).toBe(false);
  });
});

describe('runDeployProbe', () => {
  const hookEvent = { DeploymentId: 'd-123', LifecycleEventHookExecutionId: 'e-456' };
  const run = async (probe: () => Promise<ProbeOutcome>) => {
    const reported: string[] = [];
    const lines: string[] = [];
    await runDeployProbe(
      {
        probe,
        hooks: {
          report: async (execution, status) => void reported.push(`${execution.deploymentId} ${status}`),
        },
        log: createLogger('deploy-probe', 'info', (line) => lines.push(line)),
      },
      hookEvent,
    );
    return { reported, lines };
  };

  it('reports Succeeded when the new version passed, Failed when it did not or the probe threw', async () => {
    expect((await run(async () => ({ passed: true, reason: 'ok' }))).reported).toEqual(['d-123 Succeeded']);
    expect((await run(async () => ({ passed: false, reason: 'no inbox' }))).reported).toEqual([
      'd-123 Failed',
    ]);
    const threw = await run(async () => {
      throw new Error('timed out');
    });
    expect(threw.reported).toEqual(['d-123 Failed']);
    expect(threw.lines.join('\n')).toContain('"deployment_id":"d-123"');
  });

  it('refuses an event that is not a lifecycle hook', async () => {
    await expect(
      runDeployProbe(
        {
          probe: async () => ({ passed: true, reason: '' }),
          hooks: { report: async () => undefined },
          log: createLogger('x', 'error', () => undefined),
        },
        {},
      ),
    ).rejects.toThrow(/not a CodeDeploy lifecycle hook event/);
  });
});

describe('signing and the CodeDeploy call', () => {
  it("signs AWS's documented example request to the documented signature", () => {
    const headers = signRequest(
      {
        method: 'GET',
        host: 'iam.amazonaws.com',
        path: '/',
        query: 'Action=ListUsers&Version=2010-05-08',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: '',
      },
      { region: 'us-east-1', service: 'iam' },
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      new Date('2015-08-30T12:36:00Z'),
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, ' +
        'SignedHeaders=content-type;host;x-amz-date, ' +
        'Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    );
  });

  it('sends PutLifecycleEventHookExecutionStatus to the region endpoint, signed with the session token', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response('{}', { status: 200 });
    }) as unknown as typeof fetch;
    const hooks = new CodeDeployHooks(
      'eu-west-1',
      () => ({ accessKeyId: 'AKID', secretAccessKey: 'secret-never-sent', sessionToken: 'session' }),
      fakeFetch,
    );
    await hooks.report({ deploymentId: 'd-1', lifecycleEventHookExecutionId: 'e-1' }, 'Failed');
    const [call] = calls;
    expect(call?.url).toBe('https://codedeploy.eu-west-1.amazonaws.com/');
    const headers = call?.init.headers as Record<string, string>;
    expect(headers['x-amz-target']).toBe('CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus');
    expect(headers['x-amz-security-token']).toBe('session');
    expect(headers.authorization).toMatch(/Credential=AKID\/\d{8}\/eu-west-1\/codedeploy\/aws4_request/);
    expect(JSON.parse(String(call?.init.body))).toEqual({
      deploymentId: 'd-1',
      lifecycleEventHookExecutionId: 'e-1',
      status: 'Failed',
    });
    expect(JSON.stringify(call)).not.toContain('secret-never-sent');
  });

  it('throws with the error type only when CodeDeploy refuses', async () => {
    const refusing = (async () =>
      new Response('{"message":"echo of the request"}', {
        status: 400,
        headers: { 'x-amzn-errortype': 'LifecycleEventAlreadyCompletedException:http://internal' },
      })) as unknown as typeof fetch;
    const hooks = new CodeDeployHooks(
      'eu-west-1',
      () => ({ accessKeyId: 'a', secretAccessKey: 'b' }),
      refusing,
    );
    const failure = hooks.report({ deploymentId: 'd', lifecycleEventHookExecutionId: 'e' }, 'Succeeded');
    await expect(failure).rejects.toThrow('(400: LifecycleEventAlreadyCompletedException)');
  });
});

// The deploy probe: a new scanner version sweeps one account before its alias moves, and CodeDeploy always hears
// how it went, through the SDK's CodeDeploy client.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { CodeDeployHooks } from '../../shared/adapters/deploy/codeDeployHooks';
import { probeScannerVersion } from '../../shared/adapters/deploy/scannerProbe';
import { runDeployProbe } from '../../shared/composition/deployProbe';
import { createLogger } from '../../shared/log';
import { isDeployProbe, type ProbeOutcome, sweepOneAccount } from '../../shared/scanner/probe';
import type { MailboxConnector, MailboxCredentials } from '../../shared/scanner/scannerPorts';
import { cleanupsAfterEach } from '../support/cleanups';

const cleanups = cleanupsAfterEach();

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

describe('the CodeDeploy call', () => {
  /** A loopback endpoint answering as CodeDeploy would, recording each request: the real SDK client's wire. */
  const endpoint = async (status: number, answer: object, headers: Record<string, string> = {}) => {
    const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        requests.push({ headers: request.headers, body });
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...headers });
        response.end(JSON.stringify(answer));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const client = new CodeDeployClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret-never-sent', sessionToken: 'session' },
      maxAttempts: 1,
    });
    return { hooks: new CodeDeployHooks(client), requests };
  };

  it('sends PutLifecycleEventHookExecutionStatus through the SDK client, signed with the session token', async () => {
    const { hooks, requests } = await endpoint(200, { lifecycleEventHookExecutionId: 'e-1' });
    await hooks.report({ deploymentId: 'd-1', lifecycleEventHookExecutionId: 'e-1' }, 'Failed');
    const [request] = requests;
    expect(request?.headers['x-amz-target']).toBe('CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus');
    expect(request?.headers['x-amz-security-token']).toBe('session');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-west-1\/codedeploy\/aws4_request/,
    );
    expect(JSON.parse(request?.body ?? '')).toEqual({
      deploymentId: 'd-1',
      lifecycleEventHookExecutionId: 'e-1',
      status: 'Failed',
    });
    expect(JSON.stringify(request)).not.toContain('secret-never-sent');
  });

  it('throws with the error name only when CodeDeploy refuses', async () => {
    const { hooks } = await endpoint(
      400,
      { __type: 'LifecycleEventAlreadyCompletedException', message: 'echo of d-2 and e-2' },
      { 'x-amzn-errortype': 'LifecycleEventAlreadyCompletedException:http://internal' },
    );
    const failure = hooks.report({ deploymentId: 'd-2', lifecycleEventHookExecutionId: 'e-2' }, 'Succeeded');
    await expect(failure).rejects.toThrow(
      /^CodeDeploy refused the hook status \(LifecycleEventAlreadyCompletedException\)$/,
    );
  });
});

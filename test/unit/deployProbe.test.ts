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
import { isDeployProbe, type ProbeOutcome } from '../../shared/scanner/probe';
import { cleanupsAfterEach } from '../support/cleanups';

const cleanups = cleanupsAfterEach();

describe('the probe event', () => {
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
    const { client, sent } = lambdaAnswering({
      Payload: { status: 'passed', reason: 'ok', folders: 3, messages: 5 },
    });
    const outcome = await probeScannerVersion(client, 'arn:aws:lambda:eu-west-1:1:function:scanner:7');
    expect(outcome).toMatchObject({ status: 'passed', folders: 3, messages: 5 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      FunctionName: 'arn:aws:lambda:eu-west-1:1:function:scanner:7',
      InvocationType: 'RequestResponse',
    });
  });

  it('fails on a function error or an answer that is not an outcome, and keeps not-checked apart', async () => {
    const crashed = lambdaAnswering({ FunctionError: 'Unhandled', Payload: { status: 'passed' } });
    expect((await probeScannerVersion(crashed.client, 'v')).status).toBe('failed');
    for (const Payload of [{ ok: 1 }, { status: 'fine' }, { passed: true }, null]) {
      expect((await probeScannerVersion(lambdaAnswering({ Payload }).client, 'v')).status).toBe('failed');
    }
    const unchecked = lambdaAnswering({ Payload: { status: 'not-checked', reason: 'no account' } });
    expect((await probeScannerVersion(unchecked.client, 'v')).status).toBe('not-checked');
  });
});

describe('runDeployProbe', () => {
  const hookEvent = { DeploymentId: 'd-123', LifecycleEventHookExecutionId: 'e-456' };
  const run = async (probe: () => Promise<ProbeOutcome>, unchecked: 'proceed' | 'block' = 'block') => {
    const reported: string[] = [];
    const lines: string[] = [];
    await runDeployProbe(
      {
        probe,
        unchecked,
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
    expect((await run(async () => ({ status: 'passed', reason: 'ok' }))).reported).toEqual([
      'd-123 Succeeded',
    ]);
    expect((await run(async () => ({ status: 'failed', reason: 'no inbox' }))).reported).toEqual([
      'd-123 Failed',
    ]);
    const threw = await run(async () => {
      throw new Error('timed out');
    });
    expect(threw.reported).toEqual(['d-123 Failed']);
    expect(threw.lines.join('\n')).toContain('"deployment_id":"d-123"');
  });

  it('blocks a probe that checked nothing, or lets it through at warn where the deploy says proceed', async () => {
    const nothing = async (): Promise<ProbeOutcome> => ({ status: 'not-checked', reason: 'no account' });
    const blocked = await run(nothing, 'block');
    expect(blocked.reported).toEqual(['d-123 Failed']);
    expect(blocked.lines.join('\n')).toMatch(/"level":"ERROR".*"status":"not-checked"/i);
    const proceeded = await run(nothing, 'proceed');
    expect(proceeded.reported).toEqual(['d-123 Succeeded']);
    expect(proceeded.lines.join('\n')).toMatch(/"level":"WARN".*"status":"not-checked"/i);
    // The setting never turns a failure into a pass.
    const failed = await run(async () => ({ status: 'failed', reason: 'login refused' }), 'proceed');
    expect(failed.reported).toEqual(['d-123 Failed']);
  });

  it('refuses an event that is not a lifecycle hook', async () => {
    await expect(
      runDeployProbe(
        {
          probe: async () => ({ status: 'passed', reason: '' }),
          unchecked: 'block',
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

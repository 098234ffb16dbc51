// POST /api/spam-check/start's optional body (an addition): no body is the spec's request exactly; a callback URL
// is kept with the check; every bad body is a 400 whose detail names the problem, and nothing is started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS_CALLBACK_POLICY } from '../../shared/domain/publicAddress';
import { startTestService, type TestService } from '../support/testService';

let service: TestService;
let key: string;

beforeAll(async () => {
  service = await startTestService();
  await service.addAccounts({ email: 'inbox@mail.test' });
  key = await service.issueKey('default');
});

afterAll(async () => {
  await service?.close();
});

const start = (body?: string) =>
  service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${key}`,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });

describe('the start body', () => {
  it('without a body: the spec answer, and the check has no callback', async () => {
    const response = await start();
    expect(response.status).toBe(200);
    const { check_id } = response.body as { check_id: string };
    expect((await service.deps.checks.get(check_id))?.callback).toBeUndefined();
  });

  it('a JSON object without callback_url is ignored, as the base contract ignores any body', async () => {
    const response = await start('{"accounts":["x@y.z"]}');
    expect(response.status).toBe(200);
    const { check_id } = response.body as { check_id: string };
    expect((await service.deps.checks.get(check_id))?.callback).toBeUndefined();
  });

  it('with a callback URL: kept with the check, with the key and the report URL', async () => {
    const response = await start(
      JSON.stringify({ callback_url: 'https://hooks.example.com/placement?x=1#frag' }),
    );
    expect(response.status).toBe(200);
    const { check_id } = response.body as { check_id: string };
    expect((await service.deps.checks.get(check_id))?.callback).toEqual({
      callbackUrl: 'https://hooks.example.com/placement?x=1',
      keyId: expect.stringMatching(/^[0-9a-f]{12}$/),
      reportUrl: `${service.baseUrl}/api/spam-check/${check_id}/report`,
    });
  });

  it.each([
    ['{', 'not valid JSON'],
    ['[]', 'expected a JSON object'],
    ['"https://hooks.example.com"', 'expected a JSON object'],
    [
      '{"callback_url":"https://a.example","extra":1,"more":2}',
      '2 unknown fields; only callback_url is accepted',
    ],
    ['{"callback_url":42}', 'callback_url must be a string'],
    ['{"callback_url":"hooks.example.com/x"}', 'callback_url is not an absolute URL'],
    ['{"callback_url":"http://hooks.example.com/x"}', 'callback_url must use https'],
    ['{"callback_url":"ftp://hooks.example.com/x"}', 'callback_url must use https'],
    ['{"callback_url":"https://user:pw@hooks.example.com/"}', 'callback_url must not carry credentials'],
    ['{"callback_url":"https://10.0.0.1/"}', 'callback_url must point at a public address'],
    ['{"callback_url":"https://[fd00::1]/"}', 'callback_url must point at a public address'],
    ['{"callback_url":"https://169.254.169.254/latest"}', 'callback_url must point at a public address'],
    ['{"callback_url":"https://127.0.0.1/"}', 'callback_url must not point at this machine'],
    ['{"callback_url":"http://127.0.0.1:8080/"}', 'callback_url must use https'],
    [
      JSON.stringify({ callback_url: `https://a.example/${'x'.repeat(2100)}` }),
      'callback_url is longer than 2048 characters',
    ],
    [' '.repeat(5000), 'longer than 4096 bytes'],
  ])('%s: 400 "%s"', async (body, problem) => {
    expect(service.deps.callbackPolicy ?? AWS_CALLBACK_POLICY).toEqual(AWS_CALLBACK_POLICY);
    const response = await start(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: `Invalid request body: ${problem}` });
  });

  it('http to this machine only where the local setting allows it', async () => {
    service.deps.callbackPolicy = { allowLoopbackHttp: true };
    try {
      expect((await start('{"callback_url":"http://127.0.0.1:8080/hook"}')).status).toBe(200);
      expect((await start('{"callback_url":"http://localhost:8080/hook"}')).status).toBe(200);
      const remote = await start('{"callback_url":"http://hooks.example.com/hook"}');
      expect(remote.body).toEqual({ detail: 'Invalid request body: callback_url must use https' });
    } finally {
      service.deps.callbackPolicy = undefined;
    }
  });

  it('a body not declared JSON that does not ask for a webhook is ignored; one that does is judged', async () => {
    const send = (body: string) =>
      service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}`, body });
    for (const body of ['{', 'x'.repeat(5000), '[1]', '{"accounts":[]}'])
      expect((await send(body)).status).toBe(200);
    const asked = await send('{"callback_url":"http://hooks.example.com/"}');
    expect(asked.body).toEqual({ detail: 'Invalid request body: callback_url must use https' });
  });

  it('an unauthenticated request is refused before its body is read', async () => {
    const response = await service.request('POST', '/api/spam-check/start', { body: '{' });
    expect(response.status).toBe(401);
  });
});

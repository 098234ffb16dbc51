// docs/contract.md "Authentication": the one accepted form is `Authorization: Bearer <API_KEY>` with exactly one space;
// every other form gets 401 `Invalid or missing API key`, on both endpoints, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf } from '../../shared/domain/apiKey';
import { inProcessApi } from '../support/invokeInProcess';
import { startTestService, type TestService } from '../support/testService';

let service: TestService;
let key: string;
let expiredKey: string;
let revokedKey: string;
let checkId: string;

beforeAll(async () => {
  service = await startTestService();
  await service.addAccounts({ email: 'alpha@mail.test' });
  key = await service.issueKey('default');
  expiredKey = await service.issueKey('default', { expiresAt: service.clock.now() - 1 });
  revokedKey = await service.issueKey('default');
  await service.deps.keys.revoke(keyIdOf(hashApiKey(revokedKey)));
  const started = await service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}` });
  checkId = (started.body as { check_id: string }).check_id;
});
afterAll(async () => service.close());

const malformed = (): [string, Record<string, string | string[]>][] => [
  ['no header at all', {}],
  ['empty value', { authorization: '' }],
  ['scheme only', { authorization: 'Bearer' }],
  ['scheme and a space only', { authorization: 'Bearer ' }],
  ['two spaces', { authorization: `Bearer  ${key}` }],
  ['a tab instead of the space', { authorization: `Bearer\t${key}` }],
  ['no space', { authorization: `Bearer${key}` }],
  ['lower-case scheme', { authorization: `bearer ${key}` }],
  ['upper-case scheme', { authorization: `BEARER ${key}` }],
  ['Basic scheme', { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` }],
  ['Token scheme', { authorization: `Token ${key}` }],
  ['key without scheme', { authorization: key }],
  ['trailing garbage after the key', { authorization: `Bearer ${key} extra` }],
  ['key with a character outside b64token', { authorization: `Bearer ${key}!` }],
  ['key truncated by one character', { authorization: `Bearer ${key.slice(0, -1)}` }],
  ['key with one more character', { authorization: `Bearer ${key}A` }],
  [
    'another key of the right shape',
    { authorization: 'Bearer ipk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
  ],
  ['key in upper case', { authorization: `Bearer ${key.toUpperCase()}` }],
  ['two keys separated by a comma', { authorization: `Bearer ${key}, Bearer ${key}` }],
  ['a 10 KB key', { authorization: `Bearer ${'a'.repeat(10_240)}` }],
  ['the key in X-Api-Key instead', { 'x-api-key': key }],
  [
    'the key hashed instead of plain',
    { authorization: 'Bearer 0000000000000000000000000000000000000000000000000000000000000000' },
  ],
  ['quoted key', { authorization: `Bearer "${key}"` }],
  ['non-ASCII key', { authorization: 'Bearer cl\u00e9-key-with-latin1' }],
  ['a colon after the scheme', { authorization: `Bearer: ${key}` }],
  ['an equals sign instead of the space', { authorization: `Bearer=${key}` }],
  ['the scheme twice', { authorization: `Bearer Bearer ${key}` }],
  ['a space inside the key', { authorization: `Bearer ${key.slice(0, 10)} ${key.slice(10)}` }],
  ['a no-break space instead of the space', { authorization: `Bearer\u00a0${key}` }],
  ['the header sent twice, both valid', { authorization: [`Bearer ${key}`, `Bearer ${key}`] }],
  [
    'the header sent twice, an invalid one first',
    { authorization: ['Bearer wrong-key-0000000', `Bearer ${key}`] },
  ],
  ['the key base64-encoded', { authorization: `Bearer ${Buffer.from(key).toString('base64')}` }],
  ['the key percent-encoded', { authorization: `Bearer %${key.charCodeAt(0).toString(16)}${key.slice(1)}` }],
  ['the key with = padding added', { authorization: `Bearer ${key}=` }],
  ['Digest scheme', { authorization: `Digest username="default", response="${key}"` }],
  ['the key in Proxy-Authorization instead', { 'proxy-authorization': `Bearer ${key}` }],
  ['the key in a cookie instead', { cookie: `api_key=${key}` }],
  ['a 513-character key', { authorization: `Bearer ${'A'.repeat(513)}` }],
  ['an expired key', { authorization: `Bearer ${expiredKey}` }],
  ['a revoked key', { authorization: `Bearer ${revokedKey}` }],
];

describe('Authorization matrix', () => {
  it('covers at least 30 distinct malformed forms', () => {
    const forms = malformed();
    expect(forms.length).toBeGreaterThanOrEqual(30);
    expect(new Set(forms.map(([name]) => name)).size).toBe(forms.length);
    expect(new Set(forms.map(([, headers]) => JSON.stringify(headers))).size).toBe(forms.length);
  });

  it('accepts exactly `Bearer <key>` on both endpoints', async () => {
    const authorization = `Bearer ${key}`;
    expect((await service.request('POST', '/api/spam-check/start', { authorization })).status).toBe(200);
    expect((await service.request('GET', `/api/spam-check/${checkId}`, { authorization })).status).toBe(200);
  });

  for (const [mode, call] of [
    ['over HTTP', () => service.request],
    ['in process', () => inProcessApi(service.deps)],
  ] as const)
    for (const endpoint of ['POST /api/spam-check/start', 'GET /api/spam-check/{check_id}']) {
      it(`rejects every malformed form on ${endpoint} ${mode} with 401 and the exact detail`, async () => {
        const [method, template] = endpoint.split(' ') as [string, string];
        const path = template.replace('{check_id}', checkId);
        for (const [name, headers] of malformed()) {
          const response = await call()(method, path, { headers });
          expect({ name, status: response.status }).toEqual({ name, status: 401 });
          expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
          expect(response.headers['www-authenticate']).toBe('Bearer');
        }
      });
    }
});

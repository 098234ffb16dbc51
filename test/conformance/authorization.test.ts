// SPEC.md "Authentication": the one accepted form is `Authorization: Bearer <API_KEY>` with exactly one space;
// every other form gets 401 `Invalid or missing API key`, on both endpoints, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/testService';

let service: TestService;
let key: string;
let checkId: string;

beforeAll(async () => {
  service = await startTestService();
  await service.addAccounts({ email: 'alpha@mail.test' });
  key = await service.issueKey('default');
  const started = await service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}` });
  checkId = (started.body as { check_id: string }).check_id;
});
afterAll(async () => service.close());

const malformed = (): [string, Record<string, string>][] => [
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
];

describe('Authorization matrix', () => {
  it('covers at least 15 malformed forms', () => {
    expect(malformed().length).toBeGreaterThanOrEqual(15);
  });

  it('accepts exactly `Bearer <key>` on both endpoints', async () => {
    const authorization = `Bearer ${key}`;
    expect((await service.request('POST', '/api/spam-check/start', { authorization })).status).toBe(200);
    expect((await service.request('GET', `/api/spam-check/${checkId}`, { authorization })).status).toBe(200);
  });

  for (const endpoint of ['POST /api/spam-check/start', 'GET /api/spam-check/{check_id}']) {
    it(`rejects every malformed form on ${endpoint} with 401 and the exact detail`, async () => {
      const [method, template] = endpoint.split(' ') as [string, string];
      const path = template.replace('{check_id}', checkId);
      for (const [name, headers] of malformed()) {
        const response = await service.request(method, path, { headers });
        expect({ name, status: response.status }).toEqual({ name, status: 401 });
        expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
        expect(response.headers['www-authenticate']).toBe('Bearer');
      }
    });
  }
});

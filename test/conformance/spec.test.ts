// docs/contract.md 1.0.0, row by row, over real HTTP against the local server and a real dynalite.
// Each describe names the spec table it covers; each test names the row.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf } from '../../shared/domain/apiKey';
import { DEFAULT_AUTH_CACHE_TTL_MS } from '../../shared/domain/authCache';
import { CATEGORIES } from '../../shared/domain/categories';
import type { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const MINUTE = 60_000;
const START = '/api/spam-check/start';
const get = (id: string) => `/api/spam-check/${id}`;

/** The names in the first column of docs/contract.md's Categories table. */
const documentedCategories = (): string[] => {
  const contract = readFileSync(join(import.meta.dirname, '../../docs/contract.md'), 'utf8');
  const section = contract.split('\n## Categories\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) =>
      [...(line.split('|')[1] ?? '').matchAll(/`([a-z]+)`/g)].map((match) => match[1] ?? ''),
    );
};

interface StartBody {
  check_id: string;
  accounts: string[];
}
interface GetBody {
  check_id: string;
  status: string;
  received: number;
  total: number;
  results: { email: string; category: string }[];
}

let service: TestService & { clock: ManualClock };
let key: string;
let auth: string;
const emails = ['alpha@mail.test', 'beta@example.org', 'gamma@mail.test'];

beforeAll(async () => {
  service = await startTestService();
  await service.addAccounts(...emails.map((email) => ({ email, scope: 'default' })));
  await service.addAccounts({ email: 'other@mail.test', scope: 'other' });
  key = await service.issueKey('default');
  auth = `Bearer ${key}`;
});
afterAll(async () => service.close());
beforeEach(() => service.clock.set(Date.UTC(2026, 10, 22, 12, 0, 0)));

const start = async () => {
  const response = await service.request('POST', START, { authorization: auth });
  expect(response.status).toBe(200);
  return response.body as StartBody;
};
const read = async (id: string) => {
  const response = await service.request('GET', get(id), { authorization: auth });
  return { status: response.status, body: response.body as GetBody };
};
const deliver = (id: string, email: string, category: 'primary' | 'spam' | 'promotions' = 'primary') =>
  service.openChecks.recordResult(id, email, category, service.clock.now());

describe('Resources: Start response', () => {
  it('check_id is a string', async () => {
    const body = await start();
    expect(typeof body.check_id).toBe('string');
    expect(body.check_id.length).toBeGreaterThan(0);
  });

  it('accounts is an array of strings shaped <local_part>+tc_<check_id>@<domain>', async () => {
    const body = await start();
    expect(body.accounts).toHaveLength(emails.length);
    for (const address of body.accounts) {
      expect(typeof address).toBe('string');
      const match = /^([^@+]+)\+tc_([^@]+)@(.+)$/.exec(address);
      expect(match?.[2]).toBe(body.check_id);
      expect(emails).toContain(`${match?.[1]}@${match?.[3]}`);
    }
  });

  it('carries exactly the two documented fields', async () => {
    expect(Object.keys(await start()).sort()).toEqual(['accounts', 'check_id']);
  });
});

describe('Resources: Check (get response)', () => {
  it('has check_id, status, received, total, results with the documented types and nothing else', async () => {
    const { check_id } = await start();
    const { status, body } = await read(check_id);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['check_id', 'status', 'received', 'total', 'results']);
    expect(body.check_id).toBe(check_id);
    expect(['pending', 'complete', 'timeout']).toContain(body.status);
    expect(Number.isInteger(body.received)).toBe(true);
    expect(Number.isInteger(body.total)).toBe(true);
    expect(Array.isArray(body.results)).toBe(true);
  });
});

describe('Resources: AccountResult', () => {
  it('email is the untagged address <local_part>@<domain>', async () => {
    const { check_id } = await start();
    const { body } = await read(check_id);
    expect(body.results.map((result) => result.email).sort()).toEqual([...emails].sort());
    for (const result of body.results) expect(result.email).not.toContain('+tc_');
  });

  it('category is one of the nine documented values', async () => {
    const { check_id } = await start();
    await deliver(check_id, 'alpha@mail.test', 'spam');
    const { body } = await read(check_id);
    for (const result of body.results) {
      expect(Object.keys(result)).toEqual(['email', 'category']);
      expect(CATEGORIES).toContain(result.category);
    }
    // The vocabulary is the contract's, read from its Categories table rather than copied a third time.
    const documented = documentedCategories();
    expect(documented).toHaveLength(9);
    expect([...CATEGORIES].sort()).toEqual(documented.sort());
  });
});

describe('Resources: Error body', () => {
  it('is {detail: string} on every error', async () => {
    for (const response of [
      await service.request('POST', START),
      await service.request('GET', get('nope'), { authorization: auth }),
      await service.request('GET', '/elsewhere'),
    ]) {
      expect(response.headers['content-type']).toBe('application/json');
      expect(Object.keys(response.body as object)).toEqual(['detail']);
      expect(typeof (response.body as { detail: unknown }).detail).toBe('string');
    }
  });
});

describe('States and transitions', () => {
  it('(none) -> pending on start: every account result starts as pending', async () => {
    const { check_id } = await start();
    const { body } = await read(check_id);
    expect(body.status).toBe('pending');
    expect(body.received).toBe(0);
    expect(body.total).toBe(emails.length);
    expect(body.results.every((result) => result.category === 'pending')).toBe(true);
  });

  it('pending -> pending when a message arrives: that category is set and received increases', async () => {
    const { check_id } = await start();
    expect(await deliver(check_id, 'beta@example.org', 'promotions')).toBe('recorded');
    const { body } = await read(check_id);
    expect(body.status).toBe('pending');
    expect(body.received).toBe(1);
    expect(body.results.find((result) => result.email === 'beta@example.org')?.category).toBe('promotions');
    expect(body.results.filter((result) => result.category === 'pending')).toHaveLength(emails.length - 1);
  });

  it('a second arrival at the same account changes nothing (the account has already received it)', async () => {
    const { check_id } = await start();
    await deliver(check_id, 'alpha@mail.test', 'primary');
    expect(await deliver(check_id, 'alpha@mail.test', 'spam')).toBe('already-recorded');
    const { body } = await read(check_id);
    expect(body.received).toBe(1);
    expect(body.results.find((result) => result.email === 'alpha@mail.test')?.category).toBe('primary');
  });

  it('pending -> complete when received equals total; all results final', async () => {
    const { check_id } = await start();
    for (const email of emails) await deliver(check_id, email);
    const { body } = await read(check_id);
    expect(body.status).toBe('complete');
    expect(body.received).toBe(body.total);
    expect(body.results.every((result) => result.category === 'primary')).toBe(true);
    service.clock.advance(6 * MINUTE);
    expect((await read(check_id)).body.status).toBe('complete');
  });

  it('pending stays pending at exactly 5 minutes, and becomes timeout just after', async () => {
    const { check_id } = await start();
    service.clock.advance(5 * MINUTE);
    expect((await read(check_id)).body.status).toBe('pending');
    service.clock.advance(1);
    expect((await read(check_id)).body.status).toBe('timeout');
  });

  it('pending -> timeout after more than 5 minutes: accounts without a message keep pending, received < total', async () => {
    const { check_id } = await start();
    await deliver(check_id, 'alpha@mail.test');
    service.clock.advance(5 * MINUTE + 1000);
    const { body } = await read(check_id);
    expect(body.status).toBe('timeout');
    expect(body.received).toBe(1);
    expect(body.received).toBeLessThan(body.total);
    expect(body.results.filter((result) => result.category === 'pending')).toHaveLength(emails.length - 1);
  });

  it('timeout is final: a late arrival is not applied', async () => {
    const { check_id } = await start();
    service.clock.advance(5 * MINUTE + 1);
    expect(await deliver(check_id, 'alpha@mail.test')).toBe('closed');
    const { body } = await read(check_id);
    expect(body.status).toBe('timeout');
    expect(body.received).toBe(0);
  });

  it('complete or timeout -> deleted 10 minutes after the start: GET answers 404 Check not found or expired', async () => {
    const timedOut = (await start()).check_id;
    const completed = (await start()).check_id;
    for (const email of emails) await deliver(completed, email);
    service.clock.advance(10 * MINUTE - 1);
    expect((await read(timedOut)).status).toBe(200);
    expect((await read(completed)).status).toBe(200);
    service.clock.advance(1);
    for (const id of [timedOut, completed]) {
      const { status, body } = await read(id);
      expect(status).toBe(404);
      expect(body).toEqual({ detail: 'Check not found or expired' });
    }
  });
});

describe('Endpoints: Start a check', () => {
  it('POST /api/spam-check/start with no body answers 200 with check_id and accounts', async () => {
    const response = await service.request('POST', START, { authorization: auth });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect((response.body as StartBody).accounts.length).toBe(emails.length);
  });

  it('ignores a body if one is sent anyway', async () => {
    const response = await service.request('POST', START, {
      authorization: auth,
      body: '{"accounts":["x@y.z"]}',
    });
    expect(response.status).toBe(200);
    expect((response.body as StartBody).accounts.length).toBe(emails.length);
  });

  it('401 Invalid or missing API key without a key', async () => {
    const response = await service.request('POST', START);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
  });

  it('404 No accounts available for this scope when the scope has no active account', async () => {
    const lonely = await service.issueKey('empty-scope');
    const response = await service.request('POST', START, { authorization: `Bearer ${lonely}` });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'No accounts available for this scope' });
  });

  it('takes only active accounts of the caller scope', async () => {
    await service.addAccounts({ email: 'asleep@mail.test', scope: 'default', active: false });
    const body = await start();
    expect(body.accounts.some((address) => address.startsWith('asleep'))).toBe(false);
    expect(body.accounts.some((address) => address.startsWith('other'))).toBe(false);
    await service.deps.accounts.remove('asleep@mail.test');
  });

  it('each start creates a new check with a new id', async () => {
    const ids = new Set<string>();
    for (let index = 0; index < 10; index++) ids.add((await start()).check_id);
    expect(ids.size).toBe(10);
  });
});

describe('Endpoints: Get results', () => {
  it('GET /api/spam-check/{check_id} answers 200 with all five fields', async () => {
    const { check_id } = await start();
    const response = await service.request('GET', get(check_id), { authorization: auth });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body as object)).toHaveLength(5);
  });

  it('401 Invalid or missing API key without a key, even for a real check', async () => {
    const { check_id } = await start();
    const response = await service.request('GET', get(check_id));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
  });

  it('404 Check not found or expired for a wrong check_id', async () => {
    for (const id of [
      'abcdefghijklmnopqrst',
      'nope',
      'ABCDEFGHIJKLMNOPQRST',
      'a'.repeat(10_000),
      '%2Fetc%2Fpasswd',
      'ünïcödé',
    ]) {
      const response = await service.request('GET', get(encodeURIComponent(id)), { authorization: auth });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Check not found or expired' });
    }
  });

  it('a check of another scope answers 404 exactly as an unknown id does', async () => {
    const { check_id } = await start();
    const otherKey = await service.issueKey('other');
    const theirs = await service.request('GET', get(check_id), { authorization: `Bearer ${otherKey}` });
    const unknown = await service.request('GET', get('abcdefghijklmnopqrst'), {
      authorization: `Bearer ${otherKey}`,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
  });

  it('while pending, results lists every account; received counts the non-pending ones', async () => {
    const { check_id } = await start();
    await deliver(check_id, 'gamma@mail.test', 'spam');
    const { body } = await read(check_id);
    expect(body.results).toHaveLength(body.total);
    expect(body.received).toBe(body.results.filter((result) => result.category !== 'pending').length);
  });

  it('polling every 5 seconds for 5 minutes is answered every time', async () => {
    const { check_id } = await start();
    for (let poll = 0; poll < 60; poll++) {
      expect((await read(check_id)).status).toBe(200);
      service.clock.advance(5000);
    }
  });
});

describe('Authentication', () => {
  it('Authorization: Bearer <API_KEY> with one space is accepted on both endpoints', async () => {
    const { check_id } = await start();
    expect((await read(check_id)).status).toBe(200);
  });

  it('an expired key gives 401, a key before its expiry works', async () => {
    const expiring = await service.issueKey('default', { expiresAt: service.clock.now() + MINUTE });
    expect((await service.request('POST', START, { authorization: `Bearer ${expiring}` })).status).toBe(200);
    service.clock.advance(MINUTE);
    const response = await service.request('POST', START, { authorization: `Bearer ${expiring}` });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
  });

  it('a revoked key gives 401 once the auth cache lifetime has passed', async () => {
    const doomed = await service.issueKey('default');
    const { check_id } = (await service.request('POST', START, { authorization: `Bearer ${doomed}` }))
      .body as StartBody;
    expect(await service.deps.keys.revoke(keyIdOf(hashApiKey(doomed)))).toBe(true);
    service.clock.advance(DEFAULT_AUTH_CACHE_TTL_MS);
    for (const response of [
      await service.request('POST', START, { authorization: `Bearer ${doomed}` }),
      await service.request('GET', get(check_id), { authorization: `Bearer ${doomed}` }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
    }
  });
});

describe('Errors table', () => {
  it('every row carries its status, its exact detail and a JSON body', async () => {
    const lonely = await service.issueKey('nobody-here');
    const rows: [Promise<{ status: number; body: unknown }>, number, string][] = [
      [service.request('POST', START), 401, 'Invalid or missing API key'],
      [service.request('GET', get('abcdefghijklmnopqrst')), 401, 'Invalid or missing API key'],
      [
        service.request('POST', START, { authorization: `Bearer ${lonely}` }),
        404,
        'No accounts available for this scope',
      ],
      [
        service.request('GET', get('abcdefghijklmnopqrst'), { authorization: auth }),
        404,
        'Check not found or expired',
      ],
    ];
    for (const [pending, status, detail] of rows) {
      const response = await pending;
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ detail });
    }
  });

  it('wrong methods and unknown paths answer JSON errors, never a 5xx', async () => {
    const cases: [string, string, number][] = [
      ['GET', '/', 404],
      ['GET', '/api/spam-check', 404],
      ['GET', '/api/spam-check/', 404],
      ['POST', '/api/spam-check/abcdefghijklmnopqrst', 405],
      ['DELETE', START, 405],
      ['PUT', START, 405],
      ['PATCH', get('abcdefghijklmnopqrst'), 405],
      ['GET', '/api/v1/spam-check/start', 404],
      ['GET', '/api/spam-check/a/b', 404],
    ];
    for (const [method, path, status] of cases) {
      const response = await service.request(method, path, { authorization: auth });
      expect({ method, path, status: response.status }).toEqual({ method, path, status });
      expect(typeof (response.body as { detail: unknown }).detail).toBe('string');
    }
    const wrongMethod = await service.request('DELETE', START);
    expect(wrongMethod.headers.allow).toContain('POST');
  });
});

describe('Limits', () => {
  it('check auto-completion: after more than 5 minutes the status becomes timeout', async () => {
    const { check_id } = await start();
    service.clock.advance(5 * MINUTE + 1);
    expect((await read(check_id)).body.status).toBe('timeout');
  });

  it('data retention: check data is gone 10 minutes after the start', async () => {
    const { check_id } = await start();
    service.clock.advance(10 * MINUTE);
    expect((await read(check_id)).status).toBe(404);
  });

  it('messages per check: one message gives one result per account, however often it is seen', async () => {
    const { check_id } = await start();
    for (let sweep = 0; sweep < 3; sweep++) for (const email of emails) await deliver(check_id, email);
    const { body } = await read(check_id);
    expect(body.received).toBe(emails.length);
    expect(body.status).toBe('complete');
  });
});

describe('Versioning and events', () => {
  it('paths carry no version segment, and no other endpoint exists', async () => {
    expect((await service.request('POST', '/api/v1/spam-check/start', { authorization: auth })).status).toBe(
      404,
    );
    expect((await service.request('GET', '/api/spam-check/events', { authorization: auth })).status).toBe(
      404,
    );
    expect((await service.request('POST', '/api/spam-check/webhooks', { authorization: auth })).status).toBe(
      405,
    );
  });
});

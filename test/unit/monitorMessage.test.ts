// A monitor's message is checked at creation (at most 1 MB, capped before it is read; headers RFC 5322 accepts, one
// From, no Bcc) with errors that name the line, never a value; and its sealing opens only under its own context.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ItemKeySealer } from '../../shared/adapters/credentials/itemKeySealer';
import { addressOfFrom } from '../../shared/adapters/smtp/envelopeFrom';
import { localSealer } from '../../shared/local/localItemKey';
import { parseMonitorEvery } from '../../shared/monitors/monitor';
import { checkMonitorMessage, MAX_MESSAGE_BYTES } from '../../shared/monitors/monitorMessage';
import { sealContextOf } from '../../shared/monitors/runMonitor';

const GOOD = [
  'From: "Welcome team" <hello@sender.test>',
  'To: you@example.test',
  'Subject: Welcome aboard',
  'X-Long: first part',
  '\tfolded second part',
  '',
  'Hello.',
].join('\r\n');
const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('a monitor message at creation', () => {
  it('accepts a message with its headers and finds the From address', () => {
    expect(checkMonitorMessage(bytes(GOOD))).toEqual({
      from: '"Welcome team" <hello@sender.test>',
      subject: 'Welcome aboard',
      headerCount: 4,
    });
    expect(checkMonitorMessage(bytes(GOOD.replaceAll('\r\n', '\n'))).headerCount).toBe(4);
    expect(addressOfFrom(bytes(GOOD).toString('base64'))).toBe('hello@sender.test');
  });

  it.each([
    ['no From', GOOD.replace('From: "Welcome team" <hello@sender.test>\r\n', ''), 'no From header'],
    ['a Bcc', `Bcc: x@y.test\r\n${GOOD}`, 'Bcc header'],
    ['two Subjects', `Subject: again\r\n${GOOD}`, 'more than one subject header'],
    ['a folded first line', ` folded\r\n${GOOD}`, 'starts with a folded line'],
    ['a line that is no header', `not a header line\r\n${GOOD}`, 'header line 1 is not "Name: value"'],
    ['a space in a name', `Bad Name: x\r\n${GOOD}`, 'header line 1 is not "Name: value"'],
    ['a NUL', `X-A: a\u0000b\r\n${GOOD}`, 'header line 1 holds a control character'],
    ['a 999-character line', `X-A: ${'a'.repeat(994)}\r\n${GOOD}`, 'longer than 998 characters'],
    ['no blank line', 'From: a@b.test\r\nSubject: x', 'no blank line after its headers'],
  ])('refuses %s with a clear error', (_name, text, problem) => {
    expect(() => checkMonitorMessage(bytes(text))).toThrow(problem);
  });

  it('names neither a header value nor the body in an error', () => {
    const secret = 'customer-4711@private.test';
    expect(() => checkMonitorMessage(bytes(`X-A: ${secret}\u0001\r\n${GOOD}`))).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(secret) }),
    );
  });

  it('refuses more than 1 MB by its size, and a megabyte of one hostile line quickly', () => {
    expect(() => checkMonitorMessage(new Uint8Array(MAX_MESSAGE_BYTES + 1))).toThrow('at most 1 MB');
    const started = performance.now();
    expect(() => checkMonitorMessage(bytes(':'.repeat(MAX_MESSAGE_BYTES - 10)))).toThrow('no blank line');
    expect(() => checkMonitorMessage(bytes(`${'a'.repeat(MAX_MESSAGE_BYTES - 10)}\n\n`))).toThrow(
      'longer than 998',
    );
    // Linear work on a megabyte: far under a second on any machine (the bound is generous, not a benchmark).
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('takes an interval from 10s to 7d', () => {
    expect(parseMonitorEvery('6h')).toBe(6 * 3_600_000);
    expect(parseMonitorEvery('30s')).toBe(30_000);
    for (const bad of ['5s', '8d', '6 hours', '', undefined, `${'9'.repeat(50)}h`])
      expect(() => parseMonitorEvery(bad)).toThrow('--every takes');
  });
});

const newItemKey = () => randomBytes(32).toString('base64');

describe('the sealed message', () => {
  const key = newItemKey();
  const sealer = new ItemKeySealer(async () => key);

  it('opens under its own context only, and an altered value does not open', async () => {
    const sealed = await sealer.seal('Subject: private', 'MONITOR#default#welcome');
    expect(sealed).not.toContain('private');
    expect(await sealer.open(sealed, 'MONITOR#default#welcome')).toBe('Subject: private');
    await expect(sealer.open(sealed, 'MONITOR#default#other')).rejects.toThrow('does not open');
    const altered = `${sealed.slice(0, -4)}AAA=`;
    await expect(sealer.open(altered, 'MONITOR#default#welcome')).rejects.toThrow('does not open');
    await expect(
      new ItemKeySealer(async () => newItemKey()).open(sealed, 'MONITOR#default#welcome'),
    ).rejects.toThrow('does not open');
  });
});

describe('the local store sealing a message as AWS does', () => {
  it('seals in the envelope format, still opens what the key file sealed before, and binds the monitor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seal-'));
    const sealer = localSealer(dir);
    const welcome = sealContextOf('default', 'welcome');
    const sealed = await sealer.seal('Subject: private', welcome);
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(await localSealer(dir).open(sealed, welcome)).toBe('Subject: private');
    await expect(sealer.open(sealed, sealContextOf('default', 'other'))).rejects.toThrow(
      'belongs to another item',
    );
    const before = await new ItemKeySealer(async () => readFileSync(join(dir, 'item-key'), 'utf8')).seal(
      'Subject: older',
      welcome.item,
    );
    expect(await sealer.open(before, welcome)).toBe('Subject: older');
    await expect(localSealer(mkdtempSync(join(tmpdir(), 'seal-'))).open(sealed, welcome)).rejects.toThrow(
      'does not open',
    );
  });
});

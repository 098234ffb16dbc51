// The provider table of docs/providers.md shows each preset's envelope evidence as the preset states it: the
// header names for a confirmed one, "unconfirmed" where no source was found.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDERS, presetFor } from '../../shared/providers/presets';

const PAGE = readFileSync(join(import.meta.dirname, '../../docs/providers.md'), 'utf8');
const DISPLAY: Record<string, string> = {
  'delivered-to': '`Delivered-To`',
  'x-original-to': '`X-Original-To`',
  'envelope-to': '`Envelope-To`',
  received: '`Received … for`',
};

describe('docs/providers.md provider table: envelope evidence', () => {
  for (const provider of PROVIDERS) {
    it(`shows ${provider}'s evidence as its preset states it`, () => {
      const row = PAGE.split('\n').find((line) => line.startsWith(`| \`${provider}\``));
      expect(row, `no row for ${provider} in docs/providers.md`).toBeDefined();
      const cell = row?.split(' | ').at(-1) ?? '';
      const { value, confidence } = presetFor(provider).quirks.envelopeEvidence;
      if (confidence === 'unconfirmed') expect(cell).toMatch(/^unconfirmed/);
      else for (const header of value) expect(cell).toContain(DISPLAY[header]);
    });
  }
});

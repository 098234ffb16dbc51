// Owns the local config file (config/local.json): test accounts with their credentials, and optional API keys.
// On AWS the same credentials live in Secrets Manager; this file stands in for it on one machine.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { mailboxCredentialsSchema } from '../adapters/credentials/credentialsFile';

/** One test account: its registration (provider, scope, active) plus the credentials only the scanner reads. */
export const localAccountSchema = mailboxCredentialsSchema
  .extend({
    scope: z.string().default('default'),
    active: z.boolean().default(true),
  })
  .strict();

export const localConfigSchema = z.strictObject({
  accounts: z.array(localAccountSchema).default([]),
  apiKeys: z
    .array(
      z.strictObject({
        key: z.string(),
        scope: z.string().default('default'),
        label: z.string().default('config'),
      }),
    )
    .default([]),
});

export type LocalAccount = z.infer<typeof localAccountSchema>;
export type LocalConfig = z.infer<typeof localConfigSchema>;

export const parseLocalConfig = (text: string, source: string): LocalConfig => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = localConfigSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`${source} is not a valid local config: ${problems.join('; ')}`);
  }
  return parsed.data;
};

export const readLocalConfig = (path: string): LocalConfig =>
  parseLocalConfig(readFileSync(path, 'utf8'), path);

/**
 * Makes sure the config file exists: on a first run it starts as a copy of the committed example (the loopback
 * mail stack's accounts), so a fresh clone runs at once and `npm run admin -- accounts …` edits the same file.
 */
export const ensureLocalConfig = (path: string, example: string): boolean => {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(example, path);
  chmodSync(path, 0o600);
  return true;
};

// Owns the local config file (config/local.json): test accounts with their credentials, and optional API keys.
// On AWS the same credentials live in Secrets Manager; this file stands in for it on one machine.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { CATEGORIES } from '../domain/categories';

const category = z.enum(CATEGORIES.filter((value) => value !== 'pending') as [string, ...string[]]);

export const localAccountSchema = z.strictObject({
  email: z.string().min(3),
  provider: z.string().default('imap'),
  scope: z.string().default('default'),
  active: z.boolean().default(true),
  imap: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean(),
  }),
  auth: z.strictObject({ user: z.string().min(1), pass: z.string().min(1) }),
  /** Folder name -> category, overriding discovery (e.g. a provider's "Promotions" folder). */
  folders: z.record(z.string(), category).default({}),
});

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

/** The config file to use: the given one, else the committed example so that a fresh clone still starts. */
export const resolveLocalConfigPath = (
  requested: string,
  fallback: string,
): { path: string; fallback: boolean } =>
  existsSync(requested) ? { path: requested, fallback: false } : { path: fallback, fallback: true };

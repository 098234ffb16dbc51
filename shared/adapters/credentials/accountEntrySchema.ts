// Owns the format of account entries and of the config file that holds them (config/local.json, and the secret's
// `{"accounts": [...]}` on AWS): one schema, read by the credential adapters and by npm start.
import * as z from 'zod';
import { parseJsonText } from '../../domain/jsonText';
import { problemsOf } from '../../domain/problems';
import { mailboxCredentialsSchema } from './mailboxCredentials';

/** One test account: its registration (provider, scope, active) plus the credentials only the scanner reads. */
export const accountEntrySchema = mailboxCredentialsSchema
  .extend({
    scope: z.string().default('default'),
    active: z.boolean().default(true),
  })
  .strict();

export const localConfigSchema = z.strictObject({
  accounts: z.array(accountEntrySchema).default([]),
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

export type AccountEntry = z.infer<typeof accountEntrySchema>;
export type LocalConfig = z.infer<typeof localConfigSchema>;

/** Parses the file's text; a failure names the source and where, never a value (they are credentials). */
export const parseLocalConfig = (text: string, source: string): LocalConfig => {
  const parsed = localConfigSchema.safeParse(parseJsonText(text, source));
  if (!parsed.success) {
    throw new Error(`${source} is not a valid local config: ${problemsOf(parsed.error).join('; ')}`);
  }
  return parsed.data;
};

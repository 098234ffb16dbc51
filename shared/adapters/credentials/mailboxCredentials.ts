// Owns the shape of stored mailbox credentials, shared by the local config file and the Secrets Manager secret.
import * as z from 'zod';
import { normaliseAccountEmail } from '../../domain/address';
import { type DetectedCategory, isDetectedCategory } from '../../domain/categories';
import { mayCarrySecrets } from '../../domain/loopback';
import { authservIdProblem, SPAM_FILTERS, trustOf } from '../../domain/receivingTrust';
import { isProvider, presetFor } from '../../providers/presets';
import type { MailboxCredentials } from '../../scanner/scannerPorts';

export const mailboxCredentialsSchema = z.object({
  email: z.string().min(3),
  provider: z.string().default('imap'),
  imap: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean(),
  }),
  auth: z.union([
    z.strictObject({ user: z.string().min(1), pass: z.string().min(1) }),
    z.strictObject({
      user: z.string().min(1),
      oauth2: z.strictObject({
        clientId: z.string().min(1),
        clientSecret: z.string().min(1).optional(),
        refreshToken: z.string().min(1),
        // The refresh token and client secret are posted there: never in clear text off this machine.
        tokenEndpoint: z
          .url()
          .refine(
            (url) => mayCarrySecrets(url),
            'must be an https URL (plain http only to a loopback host such as 127.0.0.1)',
          ),
        scope: z.string().min(1).optional(),
      }),
    }),
  ]),
  folders: z
    .record(
      z.string(),
      z.string().refine(isDetectedCategory, 'not a category (pending is not one a folder can mean)'),
    )
    .default({}),
  /** The authserv-ids of the Authentication-Results headers the account's receiving side writes (replaces the preset's). */
  authservIds: z
    .array(
      z
        .string()
        .min(1)
        .max(128)
        .superRefine((id, context) => {
          // Matched by exact name only: the message says what is wrong, never the value.
          const problem = authservIdProblem(id);
          if (problem) context.addIssue({ code: 'custom', message: problem });
        }),
    )
    .max(16)
    .optional(),
  /** The spam filters whose verdict header the receiving side writes (replaces the preset's). */
  spamFilters: z.array(z.enum(SPAM_FILTERS)).max(4).optional(),
});

export type StoredCredentials = z.infer<typeof mailboxCredentialsSchema>;

export const toMailboxCredentials = (stored: StoredCredentials): MailboxCredentials => ({
  email: normaliseAccountEmail(stored.email),
  provider: stored.provider,
  imap: stored.imap,
  auth: stored.auth,
  folders: withPresetHints(stored.provider, stored.folders as Record<string, DetectedCategory>),
  trust: trustOf(
    isProvider(stored.provider) ? presetFor(stored.provider).quirks.receiving.value : undefined,
    stored,
  ),
});

/** The provider's folder hints under the account's own overrides, merged at load so preset fixes reach old accounts. */
const withPresetHints = (
  provider: string,
  own: Record<string, DetectedCategory>,
): Record<string, DetectedCategory> => {
  if (!isProvider(provider)) return own;
  const ownNames = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const hints = Object.entries(presetFor(provider).folderHints).filter(
    ([name]) => !ownNames.has(name.toLowerCase()),
  );
  return { ...Object.fromEntries(hints), ...own };
};

/** Credentials by normalised address, from a list of stored entries. */
export const indexCredentials = (entries: readonly StoredCredentials[]): Map<string, MailboxCredentials> =>
  new Map(entries.map((entry) => [normaliseAccountEmail(entry.email), toMailboxCredentials(entry)]));

// Owns what npm start prints for a person (and a script) to read: keys issued on this start, and the ready line.
import type { IssuedKey } from './bootstrap';
import type { IssuedWebhookSecret } from './webhookSecrets';

/** Printed once: only its hash is stored. Plain lines, so a person can copy a key and a script can grep it. */
export const printIssuedKeys = (issued: readonly IssuedKey[]): void => {
  for (const { key, scope } of issued)
    process.stdout.write(`\nAPI key for scope "${scope}" (shown once, save it): ${key}\n`);
};

/** Printed once, when a key first gets its secret; `npm run admin -- keys rotate-webhook-secret` issues another. */
export const printWebhookSecrets = (issued: readonly IssuedWebhookSecret[]): void => {
  for (const { keyId, scope, secret } of issued)
    process.stdout.write(
      `\nWebhook secret for key ${keyId} (scope "${scope}", shown once, save it): ${secret}\n`,
    );
};

export const printListening = (baseUrl: string): void => {
  process.stdout.write(`\nInbox placement service listening on ${baseUrl}\n`);
};

// Owns sending the account test's probe: one plus-addressed message through the check CLI's SMTP sender.

import { InvalidInputError } from '../domain/errors';

const smtpPassword = (url: URL, fromEnvironment: string | undefined): string => {
  const password = url.password ? decodeURIComponent(url.password) : fromEnvironment;
  if (!password)
    throw new InvalidInputError(
      `no SMTP password for ${url.username}: put it in the URL or in SMTP_PASSWORD`,
    );
  return password;
};

/** The probe goes out through the check CLI's sender: one SMTP client, one TLS policy, one way to word a refusal. */
export const sendProbe = async (
  smtpUrl: string,
  to: string,
  checkId: string,
  envPassword: string | undefined,
): Promise<void> => {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new InvalidInputError(
      `--send-via takes smtp://[user:pass@]host:port or smtps://…; got "${smtpUrl}"`,
    );
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new InvalidInputError('--send-via must be smtp:// or smtps://');
  const password = url.username ? smtpPassword(url, envPassword) : undefined;
  // Loaded on use, as nodemailer was: the other account commands never send.
  const { createSender, parseSmtpUrl } = await import('../adapters/smtp/smtp');
  const sender = createSender(parseSmtpUrl(smtpUrl, password));
  try {
    await sender.send({
      from: 'inbox-placement account test <postmaster@localhost>',
      to,
      subject: `Account test ${checkId}`,
      text: 'This message checks that the mailbox receives plus-addressed mail. It can be deleted.',
    });
  } catch (error) {
    throw new Error(`SMTP refused the test message: ${(error as Error).message}`);
  } finally {
    sender.close();
  }
};

// Owns sending mail, the one place that does (the check CLI, the admin's account probe, the calibration's control
// sender): an SMTP URL, a transport that upgrades with STARTTLS when offered (plain only to
// loopback or without a login), and turning the server's refusals into one line with its reply code and text.
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { isLoopbackHost } from '../../domain/loopback';

/** The SMTP URL is malformed (a usage error where it came from the command line). */
export class SmtpUrlError extends Error {
  override name = 'SmtpUrlError';
}

/** The SMTP server refused, or could not be reached: exit 1, one line. */
export class SmtpError extends Error {
  override name = 'SmtpError';
}

export interface SmtpTarget {
  /** host:port, for messages; never the credentials. */
  label: string;
  options: SMTPTransport.Options;
}

/** `option` names where the URL came from, in messages: `--smtp`, or a setting's name. */
export const parseSmtpUrl = (raw: string, envPassword: string | undefined, option = '--smtp'): SmtpTarget => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not repeated: it may hold a password.
    throw new SmtpUrlError(`${option} must look like smtp://[user@]host[:port] or smtps://… (it is no URL)`);
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname)
    throw new SmtpUrlError(
      `${option} must look like smtp://[user@]host[:port] or smtps://…, not "${url.protocol}…"`,
    );
  const secure = url.protocol === 'smtps:';
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  const user = decodeURIComponent(url.username);
  const pass = url.password ? decodeURIComponent(url.password) : envPassword;
  if (user && !pass)
    throw new SmtpUrlError(`${option} names the user ${user} but no password: set SMTP_PASSWORD`);
  const loopback = isLoopbackHost(url.hostname);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    label: `${url.hostname}:${port}`,
    options: {
      host,
      port,
      secure,
      ...(user ? { auth: { user, pass } } : {}),
      // STARTTLS whenever the server offers it. A login never crosses the network in clear text; on loopback
      // nothing leaves the machine and no certificate can name 127.0.0.1, so plain text and any certificate do.
      requireTLS: Boolean(user) && !loopback,
      ...(loopback ? { tls: { rejectUnauthorized: false } } : {}),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
    },
  };
};

interface NodemailerError extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
  command?: string;
}

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

const describeSmtpError = (error: unknown, label: string): string => {
  const failure = error as NodemailerError;
  if (failure.code === 'EAUTH')
    return `SMTP server ${label} refused the login: ${oneLine(failure.response ?? failure.message)}`;
  if (failure.responseCode !== undefined && failure.response)
    return `SMTP server ${label} refused the message${failure.command ? ` at ${failure.command.split(' ')[0]}` : ''}: ${oneLine(failure.response)}`;
  return `cannot send through SMTP server ${label}: ${oneLine(failure.message ?? String(error))}`;
};

export interface Sender {
  /** Connects, says EHLO and logs in, so a wrong server or password shows before a check is started. */
  verify(): Promise<void>;
  send(mail: Mail.Options): Promise<void>;
  close(): void;
}

export const createSender = (target: SmtpTarget): Sender => {
  const transport = nodemailer.createTransport(target.options);
  return {
    verify: async () => {
      try {
        await transport.verify();
      } catch (error) {
        throw new SmtpError(describeSmtpError(error, target.label));
      }
    },
    send: async (mail) => {
      let info: SMTPTransport.SentMessageInfo;
      try {
        info = await transport.sendMail(mail);
      } catch (error) {
        throw new SmtpError(describeSmtpError(error, target.label));
      }
      // Accepted for some recipients only: those accounts would stay pending until the check times out.
      if (info.rejected.length > 0) {
        const first = (info as { rejectedErrors?: NodemailerError[] }).rejectedErrors?.[0];
        const reply = first?.response ? `: ${oneLine(first.response)}` : '';
        throw new SmtpError(
          `SMTP server ${target.label} refused ${info.rejected.length} of the check's addresses${reply}`,
        );
      }
    },
    close: () => transport.close(),
  };
};

// Owns how the account test reads to its operator: JSON for scripts, or lines on the login, the folders and, after
// a probe, where it arrived and what its envelope evidence means for BCC.

import { formatTable } from './listingTable';
import type { ProbeDelivery } from './probeAttribution';

export interface AccountTestReport {
  email: string;
  login_ms: number;
  round_trip_ms: number;
  gmail_extension: boolean;
  folders: { folder: string; special_use: string; category: string }[];
  /** Present once a probe was sent. */
  probe?: { plus_address: string; waitMs: number } & ProbeDelivery;
  /** False once the test switched the account off. */
  active?: boolean;
}

/** The probe's envelope evidence in words: which headers arrived, and what that means for BCC. */
const evidenceLines = (probe: ProbeDelivery): string[] => {
  const described = (probe.envelope_evidence ?? []).map(({ header, present, names_tag }) =>
    present
      ? `${header} ${names_tag ? 'names the tagged address' : 'names another address'}`
      : `${header} absent`,
  );
  return [
    `envelope evidence: ${described.join('; ')}`,
    probe.attributed === false
      ? 'the envelope evidence names another address, so no copy can be credited to a check: this mailbox is now inactive'
      : probe.bcc_works
        ? 'BCC works: copies are credited from the envelope, whatever To says'
        : 'no envelope evidence: copies are credited from To and Cc only, so send with the tagged addresses in To (BCC copies stay pending)',
  ];
};

const asJson = (report: AccountTestReport): string => {
  const { probe, active, ...login } = report;
  if (!probe) return JSON.stringify(login);
  const { waitMs: _wait, ...delivery } = probe;
  return JSON.stringify({ ...login, ...delivery, ...(active === undefined ? {} : { active }) });
};

const asText = (report: AccountTestReport): string => {
  const lines = [
    `${report.email}: logged in over IMAP in ${report.login_ms} ms; one round trip (LIST) ${report.round_trip_ms} ms`,
    `Gmail extension (X-GM-EXT-1): ${report.gmail_extension ? 'yes, INBOX tabs come from X-GM-RAW' : 'no'}`,
    '',
    formatTable(report.folders, ['folder', 'special_use', 'category']),
  ];
  const { probe } = report;
  if (probe) {
    const { delivered } = probe;
    lines.push(
      '',
      delivered
        ? `a message to ${probe.plus_address} arrived in ${delivered.folder} (${delivered.category}) after ${delivered.after_ms} ms`
        : `no message to ${probe.plus_address} arrived within ${probe.waitMs} ms: this mailbox does not take plus addresses, so it is now inactive`,
    );
    if (delivered) lines.push(...evidenceLines(probe));
  }
  return lines.join('\n');
};

export const renderAccountTest = (report: AccountTestReport, json: boolean): string =>
  json ? asJson(report) : asText(report);

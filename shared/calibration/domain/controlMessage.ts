// Owns the control message: the one known-good text every calibration sends to every seed, plain and short, so where
// it lands says something about the seed and the sending path, never about content.

/** Marks a control copy; a test mail stack (and an operator's own filter rules) can key on it. */
export const CONTROL_HEADER = 'X-Inbox-Placement-Control';

const CONTROL_SUBJECT = 'Mailbox check';

const CONTROL_TEXT = [
  'Hello,',
  '',
  'this is a routine message from the operator of this mailbox, sent to check that mail reaches it.',
  'Nothing needs to be done, and it can be deleted.',
  '',
  'Thank you.',
].join('\n');

export interface ControlMail {
  subject: string;
  text: string;
  headers: Record<string, string>;
}

/** The control message of one calibration; the check id names it, so two runs are told apart. */
export const controlMail = (checkId: string): ControlMail => ({
  subject: CONTROL_SUBJECT,
  text: `${CONTROL_TEXT}\n`,
  headers: { [CONTROL_HEADER]: checkId },
});

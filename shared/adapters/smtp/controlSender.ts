// Owns sending the control message through the operator's control sender: one message, every seed in BCC, from the
// configured address (which the ESP signs with DKIM; nothing here signs).
import type { ControlMail, ControlSender } from '../../calibration';
import { createSender, type SmtpTarget } from './smtp';

export const createControlSender = (
  target: SmtpTarget,
  from: string,
): ControlSender & { label: string; close(): void } => {
  const sender = createSender(target);
  return {
    label: target.label,
    send: async (recipients, mail: ControlMail) => {
      await sender.send({
        from,
        to: 'undisclosed-recipients:;',
        bcc: [...recipients],
        subject: mail.subject,
        text: mail.text,
        headers: mail.headers,
      });
    },
    close: () => sender.close(),
  };
};

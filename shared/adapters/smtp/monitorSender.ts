// Owns sending a monitor's message through the monitor's own SMTP server: the stored bytes unchanged, the tagged
// addresses as envelope recipients only (no header names them), from the monitor's envelope sender.
import type { MonitorSecret, MonitorSender } from '../../monitors';
import { createSender, parseSmtpUrl } from './smtp';

export const createMonitorSender = (secret: MonitorSecret, envelopeFrom: string): MonitorSender => {
  const sender = createSender(parseSmtpUrl(secret.sendVia, secret.password, '--send-via'));
  return {
    send: async (recipients, eml) =>
      sender.send({ envelope: { from: envelopeFrom, to: [...recipients] }, raw: Buffer.from(eml) }),
    close: () => sender.close(),
  };
};

// Owns where a mailbox is served: shared by the provider presets and the scanner's ports, so neither imports the other.

export interface MailboxServer {
  host: string;
  port: number;
  /** TLS from the first byte (port 993); otherwise STARTTLS is used when offered. */
  secure: boolean;
}

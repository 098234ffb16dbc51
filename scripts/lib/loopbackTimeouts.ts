// Owns the scanner's IMAP timeouts on loopback, for tests and the scanner processes they kill.
import type { ImapTimeouts } from '../../shared/adapters/imap/ImapConnector';

// Long enough for loopback, short enough that a silent server fails within a test.
export const FAST_TIMEOUTS: ImapTimeouts = { connectMs: 1000, greetingMs: 3000, socketMs: 5000 };

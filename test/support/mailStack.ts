// The loopback mail stack as tests use it: scripts/lib/mailStack.ts, shared with the bench and the scripts.
export * from '../../scripts/lib/mailStack';

// Owns telling apart what woke the scanner Lambda: the minute schedule, a new check on the table's stream, or a hand-over.

export type ScanWake = 'schedule' | 'new-check' | 'hand-over';

/** The payload a loop that reaches its deadline sends to a fresh invocation of itself. */
export const HAND_OVER_EVENT = { source: 'inbox-placement.scanner', handOver: true } as const;

export const wakeOf = (event: unknown): ScanWake => {
  if (typeof event !== 'object' || event === null) return 'schedule';
  if ('handOver' in event && event.handOver === true) return 'hand-over';
  if ('Records' in event && Array.isArray(event.Records)) return 'new-check';
  return 'schedule';
};

// Owns the check command's one error for a wrong command line (exit 2): its message names the option.
export class UsageError extends Error {
  override name = 'UsageError';
}

// Owns parsing the operator's expiry notation: "90d", "12h", "30m", or an ISO date.
import { InvalidInputError } from '../domain/errors';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The absolute expiry (epoch ms) for `value`, relative to `now`. */
export const parseExpiry = (value: string, now: number): number => {
  const relative = /^(\d{1,5})([mhd])$/.exec(value);
  if (relative?.[1] && relative[2]) return now + Number(relative[1]) * (UNIT_MS[relative[2]] ?? 0);
  const absolute = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(absolute)) {
    if (absolute <= now) throw new InvalidInputError(`--expires ${value} is in the past`);
    return absolute;
  }
  throw new InvalidInputError(
    `--expires takes a duration like 90d, 12h or 30m, or an ISO date; got "${value}"`,
  );
};

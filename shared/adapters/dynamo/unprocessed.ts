// Owns what DynamoDB's batch calls leave unprocessed (throttled): sent again a bounded number of times, with backoff.

import { StoreUnavailableError } from '../../domain/errors';
import { sleep } from '../../domain/timer';

/** What a batch call left unprocessed is sent again this many times, after 50, 100, 200 ms. */
const UNPROCESSED_RETRIES = 3;

/**
 * Sends `first`, then what each answer left over, until nothing is left; a StoreUnavailableError naming `call` when
 * something is still left after the last retry. `send` answers what it left unprocessed, or undefined for none.
 */
export const untilProcessed = async <T>(
  call: string,
  first: T,
  send: (requests: T) => Promise<T | undefined>,
): Promise<void> => {
  let left: T | undefined = first;
  for (let attempt = 0; left !== undefined; attempt++) {
    if (attempt > UNPROCESSED_RETRIES) throw new StoreUnavailableError(`${call} left items unprocessed`);
    if (attempt > 0) await sleep(25 * 2 ** attempt);
    left = await send(left);
  }
};

// A process that rotates one account's refresh token into a config file many times, as npm start's scanner does,
// for the test that runs two of them at once. Waits for GO_FILE to exist so both start together, then prints one
// JSON line: how many rotations were stored. Env: CONFIG_FILE, EMAIL, ROTATIONS, GO_FILE.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import { refreshTokenPersister } from '../../shared/adapters/oauth/refreshTokenPersister';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const email = env('EMAIL');
const rotations = Number(env('ROTATIONS'));
const persister = refreshTokenPersister(new FileAccountEntries(env('CONFIG_FILE')));
process.stdout.write('ready\n');
while (!existsSync(env('GO_FILE'))) await sleep(5);
let stored = 0;
for (let n = 1; n <= rotations; n++) {
  if ((await persister.persistRefreshToken(email, `${email}-${n}`, `${email}-${n - 1}`)) === true) stored++;
}
process.stdout.write(`${JSON.stringify({ email, stored })}\n`);

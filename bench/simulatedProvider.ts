// One simulated provider as a process of its own for bench/simulation.ts: a scripted IMAP server that lets every seed
// in with one password and answers from an empty INBOX and junk folder, behind a delay proxy adding a provider's
// round trip. Prints `{"port": …}` (the proxy's) and serves until its stdin closes.
import { once } from 'node:events';
import { startDelayProxy } from '../scripts/lib/delayProxy';
import { startScriptedImap } from '../scripts/lib/scriptedImapServer';

const rttMs = Number(process.env.SIM_RTT_MS ?? '40');
const capabilities = ['IMAP4rev1', 'IDLE', 'LIST-STATUS', 'SPECIAL-USE', 'UIDPLUS'];

const main = async () => {
  const imap = await startScriptedImap({
    greeting: `* OK [CAPABILITY ${capabilities.join(' ')}] simulated provider ready`,
    capabilities: { beforeLogin: capabilities, afterLogin: capabilities },
    login: { user: process.env.SIM_USER ?? 'seed', pass: process.env.SIM_PASS ?? 'secret' },
    folders: [
      { path: 'INBOX', attributes: ['\\HasNoChildren'], uidValidity: 1, messages: [] },
      { path: 'Junk', attributes: ['\\HasNoChildren', '\\Junk'], uidValidity: 1, messages: [] },
    ],
  });
  // Thousands of sweeps' commands are not worth keeping: the simulation counts on the scanner's side.
  imap.commands.push = () => 0;
  const proxy = await startDelayProxy({ target: imap, rttMs });
  process.stdout.write(`${JSON.stringify({ port: proxy.port })}\n`);
  process.stdin.resume();
  await once(process.stdin, 'end');
  await proxy.close();
  await imap.close();
  process.exit(0);
};

main().catch((error: unknown) => {
  process.stderr.write(
    `simulated provider failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});

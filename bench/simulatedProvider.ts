// One simulated provider as a process of its own for bench/simulation.ts: a scripted IMAP server that lets every seed
// in with one password and answers from an empty INBOX and junk folder, over implicit TLS (SIM_TLS_KEY and
// SIM_TLS_CERT, PEM files; plain text without them) behind a delay proxy adding a provider's round trip. Prints
// `{"port": …}` (the proxy's) and serves until its stdin closes.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { startDelayProxy } from '../scripts/lib/delayProxy';
import { startScriptedImap } from '../scripts/lib/scriptedImapServer';

const rttMs = Number(process.env.SIM_RTT_MS ?? '40');
const { SIM_TLS_KEY: keyFile, SIM_TLS_CERT: certFile } = process.env;
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
    tls:
      keyFile && certFile
        ? { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') }
        : undefined,
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

// A scripted IMAP server in a process of its own, for measuring the scanner's memory apart from the server's: the
// seed's INBOX holds one plain message; a line `add` on stdin adds POISON_MESSAGES (1,000) messages of 3.9 MB of header fields (one
// text, held once) and a copy tagged for CHECK_ID behind them, then prints `added`.
import { createInterface } from 'node:readline';
import { newsletterHeaders, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { SEED as ACCOUNT, DOVECOT_LIKE, seedMessage } from './scriptedSeed';

/** Messages added (POISON_MESSAGES) and each one's header fields: 39 `To:` fields of 100,000 bytes. */
const POISON = { messages: Number(process.env.POISON_MESSAGES ?? 1000), fields: 39, fieldBytes: 100_000 };

const now = Date.now();
const messages = [seedMessage(1, now)];
const imap = await startScriptedImap({
  ...DOVECOT_LIKE,
  folders: [{ path: 'INBOX', attributes: ['\\HasNoChildren'], uidValidity: 7, messages }],
});
const huge = newsletterHeaders(0, ACCOUNT, [
  `Delivered-To: ${ACCOUNT}`,
  ...Array.from(
    { length: POISON.fields },
    (_, index) => `To: "${'z'.repeat(POISON.fieldBytes)}${index}" <${ACCOUNT}>`,
  ),
]);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line !== 'add') return;
  for (let uid = 2; uid <= POISON.messages + 1; uid++)
    messages.push({ uid, internalDate: now - 60_000, headers: huge });
  messages.push(seedMessage(POISON.messages + 2, now, process.env.CHECK_ID));
  console.log(`added ${Buffer.byteLength(huge)}`);
});
console.log(`listening ${imap.port}`);

// Owns reading a secret from the operator: hidden at a terminal, or one line from stdin for scripts. Never argv.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { InvalidInputError } from '../domain/errors';

const firstLineOfStdin = async (): Promise<string> => {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
};

const hiddenPrompt = (question: string): Promise<string> =>
  new Promise((resolve) => {
    process.stderr.write(question);
    // Echo nothing while the password is typed.
    const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
    const reader = createInterface({ input: process.stdin, output: muted, terminal: true });
    reader.question('', (answer) => {
      reader.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });

export const readSecret = async (question: string, fromStdin: boolean): Promise<string> => {
  let secret: string;
  if (fromStdin) secret = await firstLineOfStdin();
  else if (process.stdin.isTTY) secret = await hiddenPrompt(question);
  else throw new InvalidInputError('no terminal to ask for the password: pipe it in with --password-stdin');
  if (secret.length === 0) throw new InvalidInputError('the password is empty');
  return secret;
};

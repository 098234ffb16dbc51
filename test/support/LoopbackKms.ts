// A loopback stand-in for AWS KMS speaking its JSON protocol (X-Amz-Target TrentService.*), so the real SDK client and
// the Encryption SDK's KMS keyring are exercised: GenerateDataKey and Decrypt, the encryption context bound into each
// ciphertext blob as KMS binds it (another context is InvalidCiphertextException), every call counted.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const LOOPBACK_KEY_ARN = 'arn:aws:kms:local:111122223333:key/11111111-2222-3333-4444-555555555555';

type Context = Record<string, string>;
const aadOf = (keyId: string, context: Context = {}) =>
  Buffer.from(JSON.stringify([keyId, Object.entries(context).sort(([a], [b]) => a.localeCompare(b))]));

export class LoopbackKms {
  readonly calls: { operation: string; context: Context }[] = [];
  /** Every plaintext data key handed out, so a test can look for one where it must not be. */
  readonly dataKeys: Buffer[] = [];
  private readonly master = randomBytes(32);
  private server: Server | undefined;

  count(operation: string): number {
    return this.calls.filter((call) => call.operation === operation).length;
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const operation = String(request.headers['x-amz-target'] ?? '').replace('TrentService.', '');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        const [status, answer] = this.answer(operation, body);
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private answer(operation: string, body: Record<string, unknown>): [number, Record<string, unknown>] {
    const context = (body.EncryptionContext ?? {}) as Context;
    this.calls.push({ operation, context });
    const keyId = String(body.KeyId ?? LOOPBACK_KEY_ARN);
    if (keyId !== LOOPBACK_KEY_ARN) return [400, { __type: 'NotFoundException', message: 'no such key' }];
    if (operation === 'GenerateDataKey') {
      const plain = randomBytes(Number(body.NumberOfBytes ?? 32));
      this.dataKeys.push(plain);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', this.master, iv).setAAD(aadOf(keyId, context));
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return [
        200,
        { KeyId: keyId, Plaintext: plain.toString('base64'), CiphertextBlob: sealed.toString('base64') },
      ];
    }
    if (operation === 'Decrypt') {
      try {
        const blob = Buffer.from(String(body.CiphertextBlob), 'base64');
        const decipher = createDecipheriv('aes-256-gcm', this.master, blob.subarray(0, 12));
        decipher.setAAD(aadOf(keyId, context)).setAuthTag(blob.subarray(-16));
        const plain = Buffer.concat([decipher.update(blob.subarray(12, -16)), decipher.final()]);
        return [
          200,
          { KeyId: keyId, Plaintext: plain.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' },
        ];
      } catch {
        return [
          400,
          { __type: 'InvalidCiphertextException', message: 'the ciphertext or its context is wrong' },
        ];
      }
    }
    return [400, { __type: 'UnsupportedOperationException', message: operation }];
  }
}

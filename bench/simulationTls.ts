// Benchmark support for bench/simulation.ts: a throwaway test CA and the certificate it signs for 127.0.0.1, made with
// the openssl CLI as the mail stack makes its own, so the simulated providers speak TLS the shards verify.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SimulationTls {
  /** What the shards trust (IMAP_CA_FILE). */
  caFile: string;
  /** The providers' key and certificate (PEM files). */
  keyFile: string;
  certFile: string;
  dispose(): void;
}

export const makeSimulationTls = (): SimulationTls => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-simulation-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('ca.key'));
    openssl(
      ...['req', '-x509', '-new', '-key', at('ca.key'), '-sha256', '-days', '1'],
      ...['-subj', '/CN=inbox-placement simulation test CA', '-addext', 'basicConstraints=critical,CA:TRUE'],
      ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', at('ca.pem')],
    );
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('server.key'));
    openssl('req', '-new', '-key', at('server.key'), '-subj', '/CN=localhost', '-out', at('server.csr'));
    writeFileSync(
      at('server.ext'),
      'subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
    );
    openssl(
      ...['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key')],
      ...['-CAcreateserial', '-days', '1', '-sha256', '-extfile', at('server.ext'), '-out', at('server.pem')],
    );
    rmSync(at('ca.key'));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`openssl could not make the simulation's certificates: ${(error as Error).message}`);
  }
  return {
    caFile: at('ca.pem'),
    keyFile: at('server.key'),
    certFile: at('server.pem'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
};

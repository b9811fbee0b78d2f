import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away certificate authority and a server certificate it signed (PEM). */
export interface TestTls {
  ca: string;
  key: string;
  cert: string;
}

/**
 * Makes a CA and a server certificate for the given subject alternative names with openssl,
 * as an operator would. Tests only (test-* files are not compiled into the image).
 */
export async function makeTestTls(altNames = 'IP:127.0.0.1,DNS:localhost'): Promise<TestTls> {
  const dir = await mkdtemp(join(tmpdir(), 'genjobs-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    run(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=genjobs test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    await writeFile(
      join(dir, 'server.ext'),
      `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
    );
    run(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '1',
      '-extfile',
      'server.ext',
    );
    const read = (f: string) => readFile(join(dir, f), 'utf8');
    return { ca: await read('ca.crt'), key: await read('server.key'), cert: await read('server.crt') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

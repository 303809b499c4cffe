// The TLS flags shared by `serve`, `audit client` and `audit webhooks` (its key server), and `--ca` of the audits that
// connect to an HTTPS target: one parser, one message style, files read once at start.
import { mkdtemp } from 'node:fs/promises';
import { writeFileAtomic } from '../net/file-write.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerTls } from '../net/tls.js';
import { readFileArgument, UsageError } from './io.js';

// The flags themselves (--tls, --tls-cert, --tls-key, --tls-ca-out, --ca) are in the option table, cli/command-table.ts.

/** What a command listens with, and the CA file to tell the user about (generated certificates only). */
export interface ListenTls {
  readonly tls: ServerTls;
  /** Where the generated CA certificate was written; absent for the user's own certificate. */
  readonly caFile?: string;
}

async function readPemFile(path: string, flag: string, marker: RegExp): Promise<string> {
  const text = readFileArgument(path, 'certificate', flag);
  if (!marker.test(text))
    throw new UsageError(`${flag} ${JSON.stringify(path)} is not a PEM file of the expected kind`);
  return text;
}

const CERTIFICATE_PEM = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY_PEM = /-----BEGIN ([A-Z]+ )?PRIVATE KEY-----/;

/**
 * The TLS a command listens with, from its flags: undefined without any TLS flag; a generated loopback certificate
 * with `--tls` (its CA certificate written to `--tls-ca-out` or a new temp file); the user's files with
 * `--tls-cert` and `--tls-key`. Throws UsageError for an incomplete or contradictory set. The private keys are never
 * written anywhere.
 */
export async function resolveListenTls(
  values: Readonly<Record<string, unknown>>,
): Promise<ListenTls | undefined> {
  const on = values['tls'] === true;
  const certFile = values['tls-cert'] as string | undefined;
  const keyFile = values['tls-key'] as string | undefined;
  const caOut = values['tls-ca-out'] as string | undefined;
  const own = certFile !== undefined || keyFile !== undefined;
  if (!on && !own && caOut === undefined) return undefined;
  if (own) {
    if (certFile === undefined || keyFile === undefined)
      throw new UsageError('--tls-cert and --tls-key go together');
    if (caOut !== undefined)
      throw new UsageError(
        '--tls-ca-out writes the CA of a generated certificate; with --tls-cert you already have your CA',
      );
    const cert = await readPemFile(certFile, '--tls-cert', CERTIFICATE_PEM);
    const key = await readPemFile(keyFile, '--tls-key', PRIVATE_KEY_PEM);
    return { tls: { cert, key } };
  }
  if (!on) throw new UsageError('--tls-ca-out needs --tls');
  const { generateLoopbackTls } = await import('../net/tls.js');
  const generated = await generateLoopbackTls();
  const caFile = caOut ?? join(await mkdtemp(join(tmpdir(), 'payconform-tls-')), 'ca.pem');
  try {
    writeFileAtomic(caFile, generated.caCert); // the one atomic writer (a certificate: no secret)
  } catch (error) {
    throw new UsageError(
      `cannot write --tls-ca-out ${JSON.stringify(caFile)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  return { tls: { cert: generated.cert, key: generated.key }, caFile };
}

/** The CA certificate(s) of `--ca FILE`, or undefined without the flag. */
export async function resolveTrustedCa(
  values: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  const file = values['ca'] as string | undefined;
  return file === undefined ? undefined : readPemFile(file, '--ca', CERTIFICATE_PEM);
}

/** One line for the start-up banner. */
export function describeListenTls(listening: ListenTls): string {
  return listening.caFile !== undefined
    ? `TLS: certificate for localhost, 127.0.0.1 and ::1 issued by a test-only CA generated at start; trust it with the CA certificate in ${listening.caFile}`
    : 'TLS: serving the certificate of --tls-cert';
}

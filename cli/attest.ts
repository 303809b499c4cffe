// `--attest FILE`: the signing key (from the environment, never an argument), the audit's configuration as the
// statement carries it, and writing the DSSE envelope once the reports are on disk.
import { basename } from 'node:path';
import { UsageError, looksLikeKeyPath, readKeyFile } from './io.js';
import { FileReadError, readRegularFile, textOf } from '../net/file-read.js';
import { writeFileAtomic } from '../net/file-write.js';
import { createAuditStatement } from '../conformance/report/attestation.js';
import { signDsseEnvelope, serializeDsseEnvelope } from '../src/attest/dsse.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/attest/statement.js';
import type { Ed25519PrivateKey } from '../src/ed25519/index.js';
import { parseEd25519PrivateKey } from '../src/keys/index.js';
import { ATTEST_KEY_ENV, type Redactor } from '../conformance/report/redact.js';

export const ATTEST_KEY_FILE_ENV = 'PAYCONFORM_ATTEST_KEY_FILE';

/** The attestation's signing key, from PAYCONFORM_ATTEST_KEY or the file PAYCONFORM_ATTEST_KEY_FILE names. */
export function readAttestKey(
  env: Readonly<Record<string, string | undefined>>,
): Ed25519PrivateKey {
  const value = env[ATTEST_KEY_ENV];
  const file = env[ATTEST_KEY_FILE_ENV];
  const given = value !== undefined && value.trim() !== '';
  if (given && file !== undefined && file !== '')
    throw new UsageError(`set ${ATTEST_KEY_ENV} or ${ATTEST_KEY_FILE_ENV}, not both`);
  let text: string;
  let from: string;
  if (given) {
    if (looksLikeKeyPath(value))
      throw new UsageError(
        `${ATTEST_KEY_ENV} looks like a file path, not a key; set ${ATTEST_KEY_FILE_ENV} to its path instead`,
      );
    text = value;
    from = ATTEST_KEY_ENV;
  } else if (file !== undefined && file !== '') {
    text = readKeyFile(file, ATTEST_KEY_FILE_ENV);
    from = `${ATTEST_KEY_FILE_ENV} ${JSON.stringify(file)}`;
  } else
    throw new UsageError(
      `--attest needs the Ed25519 signing key in ${ATTEST_KEY_ENV} (base64 seed or PEM) or a file named by ${ATTEST_KEY_FILE_ENV}; a key is never an argument`,
    );
  try {
    return parseEd25519PrivateKey(text);
  } catch (error) {
    // The message names the form expected, never the value.
    throw new UsageError(`${from}: ${(error as Error).message}`);
  }
}

/**
 * The audit's configuration as the statement carries it: the command, its arguments (secrets are never arguments:
 * the audits refuse them) and the config file's text, with any secret form masked all the same by each redactor
 * (the run's, and the output edge's, which knows the attestation key).
 */
export function auditConfigBytes(
  command: string,
  args: readonly string[],
  redactors: readonly Redactor[],
): Uint8Array {
  const configPath = configOption(args);
  let configFile: { name: string; text: string } | null = null;
  if (configPath !== undefined)
    try {
      configFile = {
        name: basename(configPath),
        text: textOf(readRegularFile(configPath, 'config')),
      };
    } catch (error) {
      if (!(error instanceof FileReadError)) throw error;
      configFile = null;
    }
  const text = JSON.stringify({ command: `payconform ${command}`, arguments: args, configFile });
  return new TextEncoder().encode(redactors.reduce((t, r) => r.maskLiterals(t), text));
}

function configOption(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config') return args[i + 1];
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return undefined;
}

/** Signs the statement about the written report (and HAR) and writes the envelope. Throws on a file error. */
export async function writeAttestation(options: {
  readonly path: string;
  readonly key: Ed25519PrivateKey;
  readonly reportPath: string;
  readonly harPath?: string;
  readonly config: Uint8Array;
}): Promise<void> {
  const statement = createAuditStatement({
    report: readRegularFile(options.reportPath, 'report'),
    ...(options.harPath !== undefined ? { har: readRegularFile(options.harPath, 'report') } : {}),
    config: options.config,
  });
  const payload = new TextEncoder().encode(JSON.stringify(statement));
  const envelope = signDsseEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, options.key);
  // Atomic, and a new envelope is 0600: it carries the audit's configuration.
  writeFileAtomic(options.path, serializeDsseEnvelope(envelope), { sensitive: true });
}

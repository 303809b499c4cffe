// `payconform attest verify FILE --public-key KEY [--report R] [--har H]`: checks an audit's attestation offline:
// the DSSE envelope and its Ed25519 signature, the in-toto Test Result statement, the digests of the files given,
// and that the result and the test lists follow from the report's outcomes. Exit 0 verified, 1 not, 2 usage.
import { statSync } from 'node:fs';
import type { CliIo } from '../io.js';
import {
  EXIT,
  looksLikeKeyPath,
  parseCommandArgs,
  readFileArgumentBytes,
  readKeyFile,
  UsageError,
  wantsHelp,
} from '../io.js';
import { commandSpec, formatHelp, usageLine } from '../command-table.js';
import { verifyAuditAttestation, type AttestedFile } from '../../conformance/report/attestation.js';
import type { Ed25519PublicKey } from '../../src/ed25519/index.js';
import { parseEd25519PublicKey } from '../../src/keys/index.js';
import { printableValue } from '../../conformance/reporters/printable.js';

const SPEC = commandSpec('attest verify');
/**
 * The public key: read from the file `value` names when it looks like a path (`attest.pub`, `keys/attest`) or a file
 * is there (through the one reader: a missing or unreadable file is said so, never parsed as a key), else the value
 * itself (PEM or base64); a value that is neither says both.
 */
function readPublicKey(value: string): Ed25519PublicKey {
  const fromFile = looksLikeKeyPath(value) || isFile(value);
  const text = fromFile ? readKeyFile(value, '--public-key') : value;
  try {
    return parseEd25519PublicKey(text);
  } catch (error) {
    const message = (error as Error).message;
    const oneWord = !fromFile && !/[\s-]/.test(value.trim());
    throw new UsageError(
      oneWord
        ? `--public-key ${JSON.stringify(value.trim())}: no such file, and not a key (${message})`
        : `--public-key: ${message}`,
    );
  }
}

function isFile(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const { values, positionals } = parseCommandArgs(SPEC, args);
  if (positionals.length !== 1)
    throw new UsageError(`one attestation FILE is needed\n${usageLine(SPEC)}`);
  if (typeof values['public-key'] !== 'string')
    throw new UsageError(`--public-key KEY is required\n${usageLine(SPEC)}`);
  const publicKey = readPublicKey(values['public-key']);
  const envelopeFile = readFileArgumentBytes(positionals[0]!, 'report', 'attestation');
  const files: Partial<Record<AttestedFile, Uint8Array>> = {};
  for (const file of ['report', 'har'] as const) {
    const path = values[file];
    if (typeof path === 'string') files[file] = readFileArgumentBytes(path, 'report', `--${file}`);
  }

  // Everything below comes from the envelope or the report: an attacker's keyid or subject name is shown with its
  // control characters escaped, so it cannot clear the screen and print "verified" over a failure.
  const verified = printableValue(verifyAuditAttestation(envelopeFile, publicKey, files));
  if (!verified.ok) {
    io.stdout(`not verified:\n${verified.reasons.map((r) => `  - ${r}\n`).join('')}`);
    return EXIT.failed;
  }
  const { statement, keyid } = verified;
  const p = statement.predicate;
  const checked = Object.keys(files);
  io.stdout(
    `verified: signed by keyid ${keyid}; result ${p.result} (${p.passedTests.length} passed, ${p.warnedTests.length} warned, ${p.failedTests.length} failed) for ${statement.subject.map((s) => s.name ?? '(unnamed)').join(', ')}${checked.length > 0 ? `; digests match: ${checked.join(', ')}` : '; no file given, digests not checked'}\n`,
  );
  return EXIT.ok;
}

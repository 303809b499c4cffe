// The redactor at an audit's output edge: every secret the environment gives (application secret, request-signing
// key, attestation key) and the attestation key as read from its file. The last mask over every report, console line
// and attestation an audit writes, whether its run completed or was refused before it started.
import { createRedactor, secretsFromEnv, type Redactor } from '../conformance/report/redact.js';
import type { Ed25519PrivateKey } from '../src/ed25519/index.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';

/** The redactor of every secret the command was given; `attestKey`: the `--attest` key as read (env or file). */
export function outputRedactor(
  env: Readonly<Record<string, string | undefined>>,
  attestKey?: Ed25519PrivateKey,
): Redactor {
  return createRedactor(
    secretsFromEnv(env, attestKey !== undefined ? [exportEd25519SeedBase64(attestKey)] : []),
  );
}

// The environment of each program payconform starts, by role (docs/security.md): an SDK adapter and an `--exec`
// client get the credentials they sign with, a state-hook command and a vectors implementation none of the audit's
// secrets, and none of them any variable payconform reads for itself (the attestation key above all).
import { ENV_FIELDS } from '../config/config.js';
import { SECRET_ENV } from '../report/redact.js';

/**
 * Every variable payconform reads for itself: withheld from every program it starts (a role's own credentials are
 * handed back by the role's rule below). The names cli/command-table.ts documents are all here
 * (test/child-process-roles.test.ts), and so are the undocumented ones the code reads. A variable of the user's that
 * payconform does not read (`PAYCONFORM_EXE` in a CI recipe, an SDK's own switches) reaches the program as it is.
 */
export const OWN_ENV: readonly string[] = [
  ENV_FIELDS.applicationId,
  ENV_FIELDS.keyId,
  ENV_FIELDS.merchantId,
  SECRET_ENV['application-secret'],
  SECRET_ENV['private-key'],
  'PAYCONFORM_PRIVATE_KEY_FILE',
  'PAYCONFORM_PUBLIC_KEY',
  'PAYCONFORM_ATTEST_KEY',
  'PAYCONFORM_ATTEST_KEY_FILE',
  'PAYCONFORM_TARGET',
  'PAYCONFORM_REDIS_URL',
  'PAYCONFORM_CA_FILE',
  'PAYCONFORM_VERIFY_THREADS',
  'PAYCONFORM_WORKER_SETUP',
  'PAYCONFORM_BUNDLED_VERSION',
];

const OWN = new Set(OWN_ENV.map((n) => n.toUpperCase()));

/** The variables a client signs with, as payconform reads them: its ids (config.ts) and its secrets (redact.ts). */
export const CLIENT_CREDENTIAL_ENV: readonly string[] = [
  ENV_FIELDS.applicationId,
  ENV_FIELDS.keyId,
  ENV_FIELDS.merchantId,
  SECRET_ENV['application-secret'],
  SECRET_ENV['private-key'],
];

/** Who a started program is: what it may see follows from this alone. */
export type ProgramRole = 'sdk-adapter' | 'exec-client' | 'state-hook' | 'vectors-implementation';

/** The variables of `env` each role takes over as they are (beyond the ordinary environment). */
const TAKEN_FROM_ENV: Readonly<Record<ProgramRole, readonly string[]>> = {
  // The caller puts the run's own (generated) credentials in `env`, over any of the user's.
  'sdk-adapter': [SECRET_ENV['application-secret'], SECRET_ENV['private-key']],
  'exec-client': CLIENT_CREDENTIAL_ENV,
  'state-hook': [],
  // Keys travel inside the harness's messages.
  'vectors-implementation': [],
};

/** The roles that may be handed credentials (`given`) at all. */
const SIGNS: Readonly<Record<ProgramRole, boolean>> = {
  'sdk-adapter': true,
  'exec-client': true,
  'state-hook': false,
  'vectors-implementation': false,
};

/** `env` without any variable payconform reads for itself: PATH, HOME, LANG and whatever else the user set. */
export function ordinaryEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !OWN.has(name.toUpperCase())) out[name] = value;
  return out;
}

/**
 * The environment a program of `role` is started with: the ordinary part of `env`, the variables its role takes from
 * `env` (an `--exec` client: its credentials), then `given` (what payconform tells it: the adapter's generated
 * credentials, the client audit's address). A role that signs nothing may be given nothing: a TypeError otherwise.
 */
export function programEnv(
  role: ProgramRole,
  env: Readonly<Record<string, string | undefined>>,
  given: Readonly<Record<string, string>> = {},
): Record<string, string> {
  if (!SIGNS[role] && Object.keys(given).length > 0)
    throw new TypeError(`a ${role} program is given no variables by payconform`);
  const out = ordinaryEnv(env);
  for (const name of TAKEN_FROM_ENV[role]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...given };
}

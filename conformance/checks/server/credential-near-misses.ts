// Near-miss credentials (spec: Authentication, Server verification order steps 5 to 7): the application id, the
// application secret and the key id, each one character changed at the start, in the middle and at the end, in the
// other case, cut short, extended and surrounded by spaces, signed as sent (the base carries the near miss, so only
// the credential check can refuse it). Each must be refused unless it arrives as the very same credentials: HTTP
// strips the whitespace around a header value (RFC 9110 §5.5) and the base trims it too (RFC 9421 §2.1), and the
// application id is a UUID, whose hex digits are the same in either case; those are recorded, never judged.
import type { HttpRequest } from '../../../src/http/message.js';
import type { AuditCredentials, ServerAuditContext } from './context.js';
import { signBroken } from './forge.js';
import { forgeryRefusalCheck, type Forgery } from './forgery-refusals.js';
import { credentialsOf } from './requests.js';

/** One way a value is nearly right. */
export interface NearMiss {
  /** As a phrase after the credential's name ("with its first character changed"). */
  readonly how: string;
  readonly value: string;
  /** How it differs: `case` and `whitespace` may be the same credential, depending on what it is. */
  readonly kind: 'character' | 'case' | 'length' | 'whitespace';
}

/** Another character of the same class: a digit for a digit, a letter of the same case for a letter, else `a`. */
function otherCharacter(c: string): string {
  if (/[0-9]/.test(c)) return c === '0' ? '1' : '0';
  if (/[a-z]/.test(c)) return c === 'a' ? 'b' : 'a';
  if (/[A-Z]/.test(c)) return c === 'A' ? 'B' : 'A';
  return 'a';
}

const changedAt = (value: string, i: number): string =>
  `${value.slice(0, i)}${otherCharacter(value[i]!)}${value.slice(i + 1)}`;

const swapCase = (value: string): string =>
  value.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** The near misses of `value` that differ from it (a case swap of a value without letters is left out). */
export function nearMisses(value: string): NearMiss[] {
  const all: NearMiss[] = [
    { how: 'its first character changed', value: changedAt(value, 0), kind: 'character' },
    {
      how: 'its middle character changed',
      value: changedAt(value, Math.floor(value.length / 2)),
      kind: 'character',
    },
    {
      how: 'its last character changed',
      value: changedAt(value, value.length - 1),
      kind: 'character',
    },
    { how: 'its letters in the other case', value: swapCase(value), kind: 'case' },
    { how: 'cut short by its last character', value: value.slice(0, -1), kind: 'length' },
    { how: 'extended by one character', value: `${value}0`, kind: 'length' },
    { how: 'surrounded by spaces', value: ` ${value} `, kind: 'whitespace' },
  ];
  return value === '' ? [] : all.filter((m) => m.value !== value && m.value !== '');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const HEADER_WHITESPACE =
  'HTTP strips the whitespace around a header value (RFC 9110 §5.5) and the base carries the value trimmed (RFC 9421 §2.1), so the request arrives as the correct one';

interface Credential {
  readonly name: string;
  readonly requirement: string;
  readonly value: (credentials: AuditCredentials) => string;
  readonly sign: (
    request: HttpRequest,
    credentials: AuditCredentials,
    value: string,
  ) => HttpRequest;
  /** Why a near miss of this kind arrives as the same credential, where it does. */
  readonly same: (miss: NearMiss, value: string) => string | undefined;
}

const CREDENTIALS: readonly Credential[] = [
  {
    name: 'the x-application-id',
    requirement: 'SIG-VERIFY-APPLICATION-ID',
    value: (c) => c.applicationId,
    sign: (r, c, applicationId) => signBroken(r, c, { applicationId }),
    same: (miss, value) =>
      miss.kind === 'whitespace'
        ? HEADER_WHITESPACE
        : miss.kind === 'case' && UUID.test(value)
          ? 'the application id is a UUID (spec: "applicationId | string (UUID)"), whose hex digits are the same in either case (RFC 9562 §4)'
          : undefined,
  },
  {
    name: 'the x-application-secret',
    requirement: 'SIG-VERIFY-APPLICATION-SECRET',
    value: (c) => c.applicationSecret,
    sign: (r, c, applicationSecret) => signBroken(r, c, { applicationSecret }),
    same: (miss) => (miss.kind === 'whitespace' ? HEADER_WHITESPACE : undefined),
  },
  {
    // The key id is a String inside Signature-Input: its spaces are part of it, never stripped.
    name: 'the keyid',
    requirement: 'SIG-VERIFY-KEY-RESOLVE',
    value: (c) => c.keyId,
    sign: (r, c, keyId) => signBroken(r, c, { keyId }),
    same: () => undefined,
  },
];

/** Every near miss of every credential, as forgeries (21 for a UUID id and a secret and key id with letters). */
export function credentialForgeries(ctx: ServerAuditContext): Forgery[] {
  const credentials = credentialsOf(ctx);
  return CREDENTIALS.flatMap((credential) => {
    const value = credential.value(credentials);
    return nearMisses(value).map((miss): Forgery => {
      const same = credential.same(miss, value);
      return {
        name: `${credential.name} ${miss.how} (signed as sent)`,
        requirement: credential.requirement,
        build: (request) => credential.sign(request, credentials, miss.value),
        ...(same !== undefined ? { eitherAnswer: same } : {}),
      };
    });
  });
}

export const credentialNearMissChecks = [
  forgeryRefusalCheck({
    id: 'credential-near-misses',
    title:
      'an application id, application secret or key id one character off, in another case, cut short or extended is rejected',
    requirements: [
      'SIG-VERIFY-APPLICATION-ID',
      'SIG-VERIFY-APPLICATION-SECRET',
      'SIG-VERIFY-KEY-RESOLVE',
      'APP-CREDENTIALS-CHECKED',
    ],
    forgeries: credentialForgeries,
  }),
] as const;

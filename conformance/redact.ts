// Masks secrets (application secret, private key in every encoding we can derive) in anything a report can show.
import type { FieldLines } from '../src/http/message.js';

export type SecretKind = 'application-secret' | 'private-key';

/** What a masked value is replaced with. */
export const REDACTED = '[REDACTED]';

/** The environment variable each secret comes from; reproduce commands refer to it instead of the value. */
export const SECRET_ENV: Readonly<Record<SecretKind, string>> = {
  'application-secret': 'PAYCONFORM_APPLICATION_SECRET',
  'private-key': 'PAYCONFORM_PRIVATE_KEY',
};

export interface RedactorSecrets {
  readonly applicationSecret?: string | undefined;
  /** As configured: a base64 seed or a PEM container. */
  readonly privateKey?: string | undefined;
  /** Other key material (e.g. the webhook audit's RSA signing key, PEM): masked as given, line by line and joined. */
  readonly otherSecrets?: readonly string[] | undefined;
}

export type Segment = { readonly text: string } | { readonly secret: SecretKind };

export interface Redactor {
  /** Masks every known secret form, the `"x-application-secret": ...` signature-base line and secret-named JSON members. */
  redactText(text: string): string;
  /** Masks only the literal secret forms (safe on serialised JSON: it never changes structure). */
  maskLiterals(text: string): string;
  /** Replaces secret byte sequences in a body with `[REDACTED]`. */
  redactBytes(bytes: Uint8Array): Uint8Array;
  /** Masks values of secret-bearing header fields (e.g. `x-application-secret`) and any secret inside other values. */
  redactHeaders(headers: FieldLines): Array<readonly [string, string]>;
  /** Splits text into literal parts and secret occurrences (for reproduce commands that reference the environment). */
  segments(text: string): Segment[];
  /** True when the text contains a known secret form (used by tests and as a last-line guard). */
  containsSecret(text: string): boolean;
}

/** Secrets shorter than this are masked only where their position gives them away (headers, the base line). */
const MIN_LITERAL_LENGTH = 4;

/**
 * Header fields whose values are secrets. `Authorization` is deliberately not here: on webhooks it carries an
 * SHA256withRSA signature, which is public evidence a reviewer needs, and payconform never sends bearer tokens.
 */
export const SECRET_HEADER_PATTERN =
  /^(?:x-application-secret|.*(?:secret|private[-_]?key|password|api[-_]?key).*)$/i;

const ED25519_PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

function pemBodyLines(pem: string): string[] {
  return pem
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('-----'));
}

/** Every string form of the private key we can derive: as given, PEM lines, joined PEM body, seed in base64/base64url/hex. */
function privateKeyForms(input: string): string[] {
  const trimmed = input.trim();
  const forms = [input, trimmed];
  let der: Buffer | undefined;
  if (trimmed.includes('-----BEGIN')) {
    const lines = pemBodyLines(trimmed);
    forms.push(...lines, lines.join(''));
    der = Buffer.from(lines.join(''), 'base64');
  } else {
    der = Buffer.from(trimmed.replace(/\s+/g, ''), 'base64');
  }
  const seed = der.length >= 32 ? der.subarray(der.length - 32) : undefined;
  if (seed) {
    const pkcs8 = Buffer.concat([ED25519_PKCS8_PREFIX, seed]).toString('base64');
    forms.push(seed.toString('base64'), seed.toString('base64url'), seed.toString('hex'), pkcs8);
    for (let i = 0; i < pkcs8.length; i += 64) forms.push(pkcs8.slice(i, i + 64));
  }
  return forms;
}

function applicationSecretForms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    Buffer.from(secret, 'utf8').toString('base64'),
  ];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A pattern (regex source) for every way a character may be written once something escaped it, once or several
 * times over: HTML/XML entities (`&amp;`, `&#38;`, `&#x26;`, and `&amp;amp;` when escaped twice), JSON (`\"`,
 * `\\\"`, `\u0026`), percent-encoding (`%26`, `%2526`).
 */
function escapedCharacter(c: string): string {
  const code = c.codePointAt(0)!;
  const hex = code.toString(16);
  const named: Readonly<Record<string, string>> = {
    '&': 'amp',
    '<': 'lt',
    '>': 'gt',
    '"': 'quot',
    "'": 'apos',
  };
  // An entity's `&` may itself have been escaped any number of times.
  const entity = (body: string): string => `&(?:amp;)*${body};`;
  const alternatives = [
    escapeRegExp(c),
    entity(`#0*${code}`),
    entity(`#[xX]0*(?:${hex}|${hex.toUpperCase()})`),
  ];
  if (named[c] !== undefined) alternatives.push(entity(named[c]));
  if (code < 0x10000)
    alternatives.push(`\\\\+u(?:${hex.padStart(4, '0')}|${hex.padStart(4, '0').toUpperCase()})`);
  // ASCII only: a multi-byte character is percent-encoded as a run of bytes (the encodeURIComponent form covers it).
  if (code < 0x80)
    alternatives.push(`%(?:25)*(?:${hex.padStart(2, '0')}|${hex.padStart(2, '0').toUpperCase()})`);
  // Any run of backslashes before it: JSON-escaped once (`\"`) or more (`\\\"`), and `\/`.
  return `\\\\*(?:${alternatives.join('|')})`;
}

/**
 * A pattern for `secret` written raw or with any of its non-alphanumeric characters escaped, in any mixture and
 * depth: an echoing receiver's HTML page, an XML or JSON document (even JSON inside JSON), a URL, or the reporters'
 * own escaping of it. Letters and digits are never escaped by these encodings.
 */
function escapeTolerantPattern(secret: string): string {
  let out = '';
  for (const c of secret) out += characterPattern(c);
  return out;
}

const characterPattern = (c: string): string => (/^[A-Za-z0-9]$/.test(c) ? c : escapedCharacter(c));

/** Characters of a secret after which a truncated copy (`secr…`) is masked too. */
const MIN_TRUNCATED_PREFIX = 6;

/**
 * A pattern for a copy of `secret` cut short by an excerpt (a message quoting the first characters of a body):
 * any prefix of at least MIN_TRUNCATED_PREFIX characters, in any escaped form (an escape may be cut too), then an
 * ellipsis. Nested
 * optional groups keep the pattern linear in the secret's length.
 */
function truncatedPattern(secret: string): string | undefined {
  const chars = [...secret];
  if (chars.length <= MIN_TRUNCATED_PREFIX) return undefined;
  let tail = '';
  for (let i = chars.length - 2; i >= MIN_TRUNCATED_PREFIX; i--)
    tail = `(?:${characterPattern(chars[i]!)}${tail})?`;
  return `${chars.slice(0, MIN_TRUNCATED_PREFIX).map(characterPattern).join('')}${tail}(?:[&%\\\\][#A-Za-z0-9]*)?(?=…|\\.\\.\\.)`;
}

// `"x-application-secret": value` (signature base line) or `x-application-secret: value` (raw header text).
const BASE_LINE = /(x-application-secret"?[ \t]*:[ \t]*)("(?:[^"\\\r\n]|\\.)*"|[^\r\n]*)/gi;
// JSON members whose name says secret: `"applicationSecret": "..."`, `"privateKey": "..."`.
const SECRET_MEMBER =
  /("[^"\\\r\n]*(?:secret|private_?key|password)[^"\\\r\n]*"[ \t]*:[ \t]*)"(?:[^"\\]|\\.)*"/gi;

export function createRedactor(secrets: RedactorSecrets = {}): Redactor {
  const entries: Array<{ form: string; kind: SecretKind }> = [];
  const add = (forms: string[], kind: SecretKind): void => {
    for (const form of forms)
      if (form.length >= MIN_LITERAL_LENGTH && !entries.some((e) => e.form === form))
        entries.push({ form, kind });
  };
  if (secrets.applicationSecret)
    add(applicationSecretForms(secrets.applicationSecret), 'application-secret');
  if (secrets.privateKey) add(privateKeyForms(secrets.privateKey), 'private-key');
  for (const other of secrets.otherSecrets ?? []) add(privateKeyForms(other), 'private-key');
  entries.sort((a, b) => b.form.length - a.form.length); // longest first, so a PEM line never leaves a partial match
  const sources = entries.map((e) => escapeRegExp(e.form));
  const secret =
    secrets.applicationSecret !== undefined &&
    secrets.applicationSecret.length >= MIN_LITERAL_LENGTH
      ? secrets.applicationSecret
      : undefined;
  // The escape-tolerant patterns go first: they match the longest text of the secret's own forms.
  const tolerant =
    secret !== undefined
      ? [escapeTolerantPattern(secret), truncatedPattern(secret)].filter(
          (p): p is string => p !== undefined,
        )
      : [];
  const literal =
    entries.length > 0 ? new RegExp([...tolerant, ...sources].join('|'), 'g') : undefined;
  const kindOf = new Map(entries.map((e) => [e.form, e.kind]));
  const byteForms = entries.map((e) => Buffer.from(e.form, 'utf8'));

  const maskLiterals = (text: string): string => (literal ? text.replace(literal, REDACTED) : text);

  const redactText = (text: string): string => {
    let out = maskLiterals(text);
    out = out.replace(BASE_LINE, (_m, head: string, value: string) =>
      value.length === 0 ? head : `${head}${value.startsWith('"') ? `"${REDACTED}"` : REDACTED}`,
    );
    out = out.replace(SECRET_MEMBER, (_m, head: string) => `${head}"${REDACTED}"`);
    return out;
  };

  const redactBytes = (bytes: Uint8Array): Uint8Array => {
    // Byte for byte through latin1, so the (ASCII) escaped forms are found in a body of any encoding.
    let buf = Buffer.from(maskLiterals(Buffer.from(bytes).toString('latin1')), 'latin1');
    for (const form of byteForms) {
      let at = buf.indexOf(form);
      let guard = 0;
      while (at !== -1 && guard++ < 10_000) {
        buf = Buffer.concat([
          buf.subarray(0, at),
          Buffer.from(REDACTED),
          buf.subarray(at + form.length),
        ]);
        at = buf.indexOf(form, at + REDACTED.length);
      }
    }
    return new Uint8Array(buf);
  };

  return {
    redactText,
    maskLiterals,
    redactBytes,
    redactHeaders: (headers) =>
      headers.map(
        ([name, value]) =>
          [
            name,
            SECRET_HEADER_PATTERN.test(name) && value.length > 0 ? REDACTED : redactText(value),
          ] as const,
      ),
    segments(text) {
      if (!literal) return [{ text }];
      const out: Segment[] = [];
      let last = 0;
      for (const m of text.matchAll(literal)) {
        if (m.index > last) out.push({ text: text.slice(last, m.index) });
        out.push({ secret: kindOf.get(m[0]) ?? 'application-secret' });
        last = m.index + m[0].length;
      }
      if (last < text.length) out.push({ text: text.slice(last) });
      return out;
    },
    containsSecret: (text) => (literal ? new RegExp(literal.source).test(text) : false),
  };
}

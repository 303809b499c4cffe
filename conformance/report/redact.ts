// Masks secrets (application secret, private key in every encoding we can derive) in anything a report can show.
//
// Matching works on a decoded view of the text, not on patterns of it: line breaks are dropped, then escapes are
// undone pass by pass (HTML/XML entities, JSON and `\u` escapes, percent-encoding; each pass undoes one level, so
// text escaped twice is seen after two; for a secret that holds `\`, `%` or `&`, also with that kind of escape left
// as written), letter case is ignored and `+` reads as a space (form encoding). Every piece of the secret of at least
// MIN_PIECE characters found in any of those views is masked in the original text, so a copy cut short, split across
// lines or fields, or echoed in any mixture of encodings is caught; a piece shorter than MIN_PIECE cannot be told
// from ordinary text and is not (docs/security.md says so).
import type { FieldLines } from '../../src/http/message.js';

export type SecretKind = 'application-secret' | 'private-key';

/** What a masked value is replaced with. */
export const REDACTED = '[REDACTED]';

/** The environment variable each secret comes from; reproduce commands refer to it instead of the value. */
export const SECRET_ENV: Readonly<Record<SecretKind, string>> = {
  'application-secret': 'PAYCONFORM_APPLICATION_SECRET',
  'private-key': 'PAYCONFORM_PRIVATE_KEY',
};

/** The environment variable the attestation's Ed25519 signing key comes from (`--attest`): a secret like the others. */
export const ATTEST_KEY_ENV = 'PAYCONFORM_ATTEST_KEY';

/**
 * Every secret the environment gives payconform: the application secret, the request-signing key and the
 * attestation key (masked like a private key), plus any other key material the caller read (e.g. the attestation key
 * from the file PAYCONFORM_ATTEST_KEY_FILE names). The one list a command's redactor is built from.
 */
export function secretsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  otherSecrets: readonly string[] = [],
): RedactorSecrets {
  const attestKey = env[ATTEST_KEY_ENV];
  return {
    applicationSecret: env[SECRET_ENV['application-secret']],
    privateKey: env[SECRET_ENV['private-key']],
    otherSecrets: [
      ...(attestKey !== undefined && attestKey.trim() !== '' ? [attestKey] : []),
      ...otherSecrets,
    ],
  };
}

/**
 * The user information of every URL in the text, in each form a WHATWG URL parser reads as user information: after
 * `scheme://`, and for its special schemes (http, https, ws, wss, ftp) after `scheme:` and any run of `/` and `\`, none
 * included (`http:/user:pw@host`, `http:\\user:pw@host`, `http:user:pw@host` are `http://user:pw@host` to it); tabs
 * and line breaks inside are skipped, as the parser drops them. A credential a user put in a URL, which payconform
 * refuses but must not repeat in any message or report: `https://[REDACTED]@host`. The user information runs to the
 * last `@` before the path (a password may hold an unencoded `@`), and ends where a URL ends in text: whitespace, `/`,
 * `\`, `?`, `#`, a quote, `<`, `>` or a backtick.
 */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  const view = /[\t\n\r]/.test(text) ? withoutTabsAndBreaks(text) : { text, at: undefined };
  const place = (i: number): number => view.at?.[i] ?? i;
  let out = '';
  let last = 0;
  for (const m of view.text.matchAll(URL_USERINFO)) {
    const from = place(m.index + (m[1] ?? m[2]!).length);
    const to = place(m.index + m[0].length - 1); // the `@`
    // Line breaks inside stay, so a masked span never joins two lines of the output.
    out += `${text.slice(last, from)}${REDACTED}${text.slice(from, to).replace(/[^\r\n]/g, '')}`;
    last = to;
  }
  return last === 0 ? text : out + text.slice(last);
}
const URL_USERINFO =
  /(?<![a-z0-9])(?:((?:https?|wss?|ftp):[\\/]*)[^\s/?#\\"<>`]*|((?!(?:https?|wss?|ftp):)[a-z][a-z0-9+.-]*:\/\/)[^\s/?#"<>`]*)@/gi;

/** The text with tabs and line breaks dropped, and where each of its characters is in the text. */
function withoutTabsAndBreaks(text: string): {
  readonly text: string;
  readonly at: readonly number[];
} {
  const at: number[] = [];
  let kept = '';
  for (let i = 0; i < text.length; i++)
    if (text[i] !== '\t' && text[i] !== '\n' && text[i] !== '\r') {
      at.push(i);
      kept += text[i];
    }
  return { text: kept, at };
}

/**
 * The secrets a redactor masks, in every form they can appear in (as given, base64, PEM, the key's
 * other encodings).
 */
export interface RedactorSecrets {
  readonly applicationSecret?: string | undefined;
  /** As configured: a base64 seed or a PEM container. */
  readonly privateKey?: string | undefined;
  /** Other key material (e.g. the webhook audit's RSA signing key, PEM): masked as given, line by line and joined. */
  readonly otherSecrets?: readonly string[] | undefined;
}

export type Segment = { readonly text: string } | { readonly secret: SecretKind };

/** Masks secrets in text and structures before anything is written or shown. */
export interface Redactor {
  /** Masks every known secret form, the `"x-application-secret": ...` signature-base line and secret-named JSON members. */
  redactText(text: string): string;
  /** Masks only the secret forms (safe on serialised JSON: a mask never contains a quote or a backslash). */
  maskLiterals(text: string): string;
  /** Replaces secret byte sequences in a body with `[REDACTED]`. */
  redactBytes(bytes: Uint8Array): Uint8Array;
  /** Masks values of secret-bearing header fields (e.g. `x-application-secret`) and any secret inside other values. */
  redactHeaders(headers: FieldLines): Array<readonly [string, string]>;
  /** Splits text into literal parts and whole secrets (for reproduce commands that reference the environment). */
  segments(text: string): Segment[];
  /** True when the text contains a known secret form (used by tests and as a last-line guard). */
  containsSecret(text: string): boolean;
}

/** Secrets shorter than this are masked only where their position gives them away (headers, the base line). */
const MIN_LITERAL_LENGTH = 4;

/**
 * The shortest piece of the application secret that is masked on its own: a copy cut short (with or without an
 * ellipsis), the part on one line or in one field of a copy broken across several. Shorter pieces are not masked.
 */
export const MIN_PIECE = 8;

/** Decoding passes: raw, then up to this many levels of escaping undone (an escape escaped twice needs two). */
const MAX_DECODE_PASSES = 3;

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

/**
 * The base64 (and base64url) characters that depend only on the secret's bytes, at each of the three byte offsets a
 * secret can have inside a longer encoded text (`id:secret` in a Basic credential): the characters a neighbour's bits
 * share are left out, and so is the padding.
 */
function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const first = Math.ceil((8 * shift) / 6);
    const last = Math.floor((8 * (shift + bytes.length)) / 6);
    const stable = encoded.slice(first, last);
    out.push(stable, stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/**
 * A secret form to look for: whole copies in any letter case (`folded`), and pieces of at least `minPiece`
 * characters as written (`norm`; its full length: whole copies only).
 */
interface Target {
  readonly norm: string;
  readonly folded: string;
  readonly minPiece: number;
  readonly kind: SecretKind;
}

/** `+` read as the space it encodes in a form; line breaks dropped. */
const plusAsSpace = (s: string): string => s.replace(/[\r\n]/g, '').replace(/\+/g, ' ');

function target(form: string, minPiece: number, kind: SecretKind): Target {
  const norm = plusAsSpace(form);
  return { norm, folded: norm.toLowerCase(), minPiece: Math.min(norm.length, minPiece), kind };
}

function applicationSecretTargets(secret: string): Target[] {
  const bytes = Buffer.from(secret, 'utf8');
  const piece = (s: string, min: number): Target => target(s, min, 'application-secret');
  const hex = bytes.toString('hex');
  return [
    piece(secret, MIN_PIECE),
    // Hex pieces in either case; pieces of base64 (case matters there) of MIN_PIECE bytes or more.
    piece(hex, 2 * MIN_PIECE),
    piece(hex.toUpperCase(), 2 * MIN_PIECE),
    ...base64Forms(bytes)
      .filter((f) => f.length >= MIN_LITERAL_LENGTH)
      .map((f) => piece(f, Math.ceil((4 * MIN_PIECE) / 3))),
    // The whole encoding, its last character and padding included (a copy of the secret's base64 alone).
    piece(bytes.toString('base64'), Number.MAX_SAFE_INTEGER),
    piece(bytes.toString('base64url'), Number.MAX_SAFE_INTEGER),
  ];
}

/** One view of the text: its characters and, for each, the span of the original text it came from. */
interface View {
  readonly text: string;
  /** `text` in lower case (same length: the text is compared char by char with ASCII secrets). */
  readonly folded?: string;
  readonly start: Int32Array;
  readonly end: Int32Array;
}

/** The raw view: line breaks dropped, so a copy broken across lines reads whole. */
function rawView(text: string): View {
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  if (!/[\r\n]/.test(text)) {
    for (let i = 0; i < text.length; i++) {
      start[i] = i;
      end[i] = i + 1;
    }
    return { text, start, end };
  }
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\r' || c === '\n') continue;
    start[n] = i;
    end[n] = i + 1;
    n += 1;
    parts.push(c);
  }
  return { text: parts.join(''), start: start.subarray(0, n), end: end.subarray(0, n) };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};
const JSON_SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  "'": "'",
  t: '\t',
  b: '\b',
  f: '\f',
  n: '',
  r: '',
};

/** What each kind of escape a decoding pass undoes starts with: an entity, percent-encoding, a JSON escape. */
const ESCAPE_STARTS: readonly string[] = ['&', '%', '\\'];

/**
 * The escape at `i` (entity, `%XX`, `\uXXXX`, `\"`...) as [decoded text, length], or undefined; an escape of the
 * kind that starts with `kept` is left as written.
 */
function escapeAt(s: string, i: number, kept?: string): readonly [string, number] | undefined {
  const c = s[i];
  if (c === kept) return undefined;
  if (c === '&') {
    const m = /^&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,6}));/.exec(s.slice(i, i + 12));
    if (!m) return undefined;
    const code = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? parseInt(m[2], 16) : -1;
    const text =
      code >= 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : NAMED_ENTITIES[m[3]!.toLowerCase()];
    return text !== undefined ? [text, m[0].length] : undefined;
  }
  if (c === '%') {
    const m = /^%([0-7][0-9a-fA-F])/.exec(s.slice(i, i + 3));
    return m ? [String.fromCharCode(parseInt(m[1]!, 16)), 3] : undefined;
  }
  if (c === '\\') {
    const next = s[i + 1];
    if (next === 'u' || next === 'U') {
      const m = /^\\[uU]([0-9a-fA-F]{4})/.exec(s.slice(i, i + 6));
      return m ? [String.fromCharCode(parseInt(m[1]!, 16)), 6] : undefined;
    }
    if (next !== undefined && JSON_SIMPLE_ESCAPES[next] !== undefined)
      return [JSON_SIMPLE_ESCAPES[next], 2];
  }
  return undefined;
}

/** One level of escaping undone; undefined when there was none. Spans compose, so they still point at the original. */
function decodeOnce(view: View, kept?: string): View | undefined {
  const { text } = view;
  const special = /[&%\\]/g;
  if (!special.test(text)) return undefined;
  // A decoded text is never longer than its source (the longest expansion: 10 characters to a surrogate pair).
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  const parts: string[] = [];
  let n = 0;
  let changed = false;
  // Runs without an escape are copied whole; only `&`, `%` and `\` are looked at.
  const copy = (from: number, to: number, chars: string): void => {
    start.set(view.start.subarray(from, to), n);
    end.set(view.end.subarray(from, to), n);
    n += to - from;
    parts.push(chars);
  };
  for (let i = 0; i < text.length;) {
    special.lastIndex = i;
    const next = special.exec(text)?.index ?? text.length;
    if (next > i) copy(i, next, text.slice(i, next));
    if (next >= text.length) break;
    const escape = escapeAt(text, next, kept);
    if (escape === undefined) {
      copy(next, next + 1, text[next]!);
      i = next + 1;
      continue;
    }
    changed = true;
    const [chars, length] = escape;
    for (let c = 0; c < chars.length; c++) {
      start[n] = view.start[next]!;
      end[n] = view.end[next + length - 1]!;
      n += 1;
    }
    parts.push(chars);
    i = next + length;
  }
  if (!changed) return undefined;
  return { text: parts.join(''), start: start.subarray(0, n), end: end.subarray(0, n) };
}

/**
 * The raw view and each decoded one, `+` read as a space, with a case-folded copy for whole matches. Each character
 * in `kept` starts a second chain of views that leaves that family of escapes as written: a secret that holds
 * `\t` or `%41` as text is then still read whole where other characters of the copy are escaped
 * (`a%5Cb\t` is `a\b\t` to a reader who undoes percent-encoding only).
 */
function viewsOf(text: string, kept: readonly string[]): View[] {
  const views: View[] = [];
  const raw = rawView(text);
  // A family the text never starts would give the first chain's views again.
  for (const family of [undefined, ...kept.filter((c) => text.includes(c))]) {
    let view: View | undefined = raw;
    for (let pass = 0; view !== undefined && pass <= MAX_DECODE_PASSES; pass++) {
      if (pass > 0 || family === undefined) views.push(view);
      view = decodeOnce(view, family);
    }
  }
  return views.map((v) => {
    const text = v.text.replace(/\+/g, ' ');
    const folded = text.toLowerCase();
    return { ...v, text, ...(folded.length === text.length ? { folded } : {}) };
  });
}

interface Span {
  readonly from: number;
  readonly to: number;
  readonly kind: SecretKind;
  /** The whole form, not a piece of it. */
  readonly whole: boolean;
}

/** Whole copies of `target` in a view, in any letter case, as spans of the original. */
function findWhole(view: View, target: Target, spans: Span[]): void {
  // A folded view keeps the positions: only ASCII secrets are folded.
  const folded = view.folded ?? view.text;
  const whole = view.folded !== undefined ? target.folded : target.norm;
  for (let at = folded.indexOf(whole); at !== -1; at = folded.indexOf(whole, at + 1))
    spans.push({
      from: view.start[at]!,
      to: view.end[at + whole.length - 1]!,
      kind: target.kind,
      whole: true,
    });
}

const HASH_BASE = 31;

/** A rolling hash of `length` characters: the same for equal strings, cheap to move by one. */
function hashOf(text: string, from: number, length: number): number {
  let h = 0;
  for (let i = from; i < from + length; i++)
    h = (Math.imul(h, HASH_BASE) + text.charCodeAt(i)) >>> 0;
  return h;
}

/** The pieces of one length (MIN_PIECE for the secret, more for its hex and base64) of every target that has them. */
interface PieceIndex {
  readonly length: number;
  /** HASH_BASE^(length-1), to drop the character leaving the window. */
  readonly drop: number;
  readonly byHash: Map<number, Array<{ readonly target: Target; readonly at: number }>>;
  /** One bit per low 16 bits of a hash in byHash: most windows are ruled out without a Map lookup. */
  readonly seen: Uint32Array;
}

function pieceIndexes(targets: readonly Target[]): PieceIndex[] {
  const out = new Map<number, PieceIndex>();
  for (const target of targets) {
    const m = target.minPiece;
    if (m >= target.norm.length) continue;
    let index = out.get(m);
    if (index === undefined) {
      let drop = 1;
      for (let i = 1; i < m; i++) drop = Math.imul(drop, HASH_BASE) >>> 0;
      index = { length: m, drop, byHash: new Map(), seen: new Uint32Array(2048) };
      out.set(m, index);
    }
    for (let at = 0; at + m <= target.norm.length; at++) {
      const h = hashOf(target.norm, at, m);
      index.byHash.set(h, [...(index.byHash.get(h) ?? []), { target, at }]);
      index.seen[(h & 0xffff) >>> 5]! |= 1 << (h & 31);
    }
  }
  return [...out.values()];
}

/** Pieces (at least the index's length, extended as far as they go) in a view, as spans of the original. */
function findPieces(view: View, index: PieceIndex, spans: Span[]): void {
  const { text } = view;
  const m = index.length;
  if (text.length < m) return;
  const seen = index.seen;
  let h = hashOf(text, 0, m);
  for (let i = 0; ; i++) {
    const hits =
      (seen[(h & 0xffff) >>> 5]! & (1 << (h & 31))) === 0 ? undefined : index.byHash.get(h);
    if (hits !== undefined)
      for (const { target, at } of hits) {
        if (!text.startsWith(target.norm.slice(at, at + m), i)) continue;
        let length = m;
        while (at + length < target.norm.length && text[i + length] === target.norm[at + length])
          length += 1;
        spans.push({
          from: view.start[i]!,
          to: view.end[i + length - 1]!,
          kind: target.kind,
          whole: length === target.norm.length,
        });
      }
    if (i + m >= text.length) break;
    h =
      (Math.imul((h - Math.imul(text.charCodeAt(i), index.drop)) | 0, HASH_BASE) +
        text.charCodeAt(i + m)) >>>
      0;
  }
}

/** Overlapping or touching spans joined (a whole match wins the kind), in text order. */
function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.from - b.from || b.to - a.to);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s.from <= last.to) {
      out[out.length - 1] = {
        from: last.from,
        to: Math.max(last.to, s.to),
        kind: last.whole ? last.kind : s.kind,
        whole: last.whole || s.whole,
      };
    } else out.push(s);
  }
  return out;
}

// `"x-application-secret": value` (signature base line) or `x-application-secret: value` (raw header text).
const BASE_LINE = /(x-application-secret"?[ \t]*:[ \t]*)("(?:[^"\\\r\n]|\\.)*"|[^\r\n]*)/gi;
// JSON members whose name says secret: `"applicationSecret": "..."`, `"privateKey": "..."`.
const SECRET_MEMBER =
  /("[^"\\\r\n]*(?:secret|private_?key|password)[^"\\\r\n]*"[ \t]*:[ \t]*)"(?:[^"\\]|\\.)*"/gi;

function targetsFor(secrets: RedactorSecrets): Target[] {
  const targets: Target[] = [];
  const add = (t: Target): void => {
    if (t.norm.length >= MIN_LITERAL_LENGTH && !targets.some((e) => e.norm === t.norm))
      targets.push(t);
  };
  const whole = (form: string): Target => target(form, Number.MAX_SAFE_INTEGER, 'private-key');
  if (
    secrets.applicationSecret !== undefined &&
    secrets.applicationSecret.length >= MIN_LITERAL_LENGTH
  )
    applicationSecretTargets(secrets.applicationSecret).forEach(add);
  if (secrets.privateKey) privateKeyForms(secrets.privateKey).map(whole).forEach(add);
  for (const other of secrets.otherSecrets ?? []) privateKeyForms(other).map(whole).forEach(add);
  return targets;
}

/**
 * One header line (`name: value`, as curl's -H takes it) whose name says its value is a secret and whose value is the
 * application secret, however short: its name, then the reference. Undefined for any other text.
 */
function secretHeaderSegments(text: string, secret: string | undefined): Segment[] | undefined {
  const colon = text.indexOf(':');
  const value = text.slice(colon + 1).replace(/^[ \t]+/, '');
  if (colon <= 0 || value.length === 0 || value !== secret) return undefined;
  if (!SECRET_HEADER_PATTERN.test(text.slice(0, colon).trimEnd())) return undefined;
  return [{ text: text.slice(0, text.length - value.length) }, { secret: 'application-secret' }];
}

/** A redactor for these secrets; reports and logs pass everything through it. */
export function createRedactor(secrets: RedactorSecrets = {}): Redactor {
  const targets = targetsFor(secrets);
  const indexes = pieceIndexes(targets);
  const shortest = Math.min(...targets.map((t) => Math.min(t.minPiece, t.norm.length)));
  // The escape families the application secret's own text could be read as (see viewsOf).
  const kept = ESCAPE_STARTS.filter((c) => secrets.applicationSecret?.includes(c) === true);

  const spansIn = (text: string): Span[] => {
    if (targets.length === 0 || text.length < shortest) return [];
    const spans: Span[] = [];
    for (const view of viewsOf(text, kept)) {
      for (const target of targets) findWhole(view, target, spans);
      for (const index of indexes) findPieces(view, index, spans);
    }
    return spans.length === 0 ? spans : mergeSpans(spans);
  };

  const maskLiterals = (text: string): string => {
    const spans = spansIn(text);
    if (spans.length === 0) return text;
    let out = '';
    let last = 0;
    for (const s of spans) {
      out += text.slice(last, s.from) + REDACTED;
      last = s.to;
    }
    return out + text.slice(last);
  };

  const redactText = (text: string): string => {
    let out = maskUrlCredentials(maskLiterals(text));
    out = out.replace(BASE_LINE, (_m, head: string, value: string) =>
      value.length === 0 ? head : `${head}${value.startsWith('"') ? `"${REDACTED}"` : REDACTED}`,
    );
    out = out.replace(SECRET_MEMBER, (_m, head: string) => `${head}"${REDACTED}"`);
    return out;
  };

  return {
    redactText,
    maskLiterals,
    // Byte for byte through latin1, so the (ASCII) forms are found in a body of any encoding.
    redactBytes: (bytes) =>
      new Uint8Array(Buffer.from(maskLiterals(Buffer.from(bytes).toString('latin1')), 'latin1')),
    redactHeaders: (headers) =>
      headers.map(
        ([name, value]) =>
          [
            name,
            SECRET_HEADER_PATTERN.test(name) && value.length > 0 ? REDACTED : redactText(value),
          ] as const,
      ),
    segments(text) {
      const header = secretHeaderSegments(text, secrets.applicationSecret);
      if (header !== undefined) return header;
      const out: Segment[] = [];
      let last = 0;
      for (const s of spansIn(text)) {
        if (s.from > last) out.push({ text: text.slice(last, s.from) });
        // The secret as written becomes an environment reference; a piece or an encoded copy is masked.
        const exact =
          s.whole &&
          (s.kind === 'private-key' || text.slice(s.from, s.to) === secrets.applicationSecret);
        out.push(exact ? { secret: s.kind } : { text: REDACTED });
        last = s.to;
      }
      if (last < text.length || out.length === 0) out.push({ text: text.slice(last) });
      return out;
    },
    containsSecret: (text) => spansIn(text).length > 0,
  };
}

/**
 * The engine's last-line guard over any JSON-shaped value (a check's result, a HAR): unchanged when no secret form is
 * in it, else every string value masked with `maskLiterals`, the structure and member names kept.
 */
export function scrubValues<T>(value: T, redactor: Redactor): T {
  if (!redactor.containsSecret(JSON.stringify(value))) return value;
  return maskValues(value, redactor) as T;
}

/** Every string value of a JSON-shaped value masked; the structure and member names kept. */
function maskValues(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.maskLiterals(value);
  if (Array.isArray(value)) return value.map((v) => maskValues(v, redactor));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValues(v, redactor)]));
  return value;
}

// "Why did the signature fail": rebuilds the signature base under the mistakes clients really make and names the
// one (or the pair) under which the client's Ed25519 signature verifies, with the base lines that differ.
// Also explains a Content-Digest that does not match the body (which serialisation of the body it was taken over).
import { digestBytes, parseContentDigest } from '../src/digest/content-digest.js';
import type { Ed25519Backend, Ed25519PublicKey } from '../src/ed25519/backend.js';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import type { BareItem } from '../src/structured-fields/structured-fields.js';
import type { ComponentIdentifier } from '../src/signatures/component-identifier.js';
import { verifySignatureBase } from '../src/signatures/create-signature.js';
import { componentValue } from '../src/signatures/signature-base.js';
import { parseSignature, parseSignatureInput } from '../src/signatures/signature-fields.js';
import { serializeSignatureParams } from '../src/signatures/signature-params.js';
import { parseTargetUri } from '../src/signatures/target-uri.js';
import { REDACTED } from './redact.js';

/** The mistakes the diagnosis tries (public API: ids never renamed). */
export const signatureMistakes = {
  'path-without-query': {
    requirement: 'SIG-BASE-PATH',
    title: '@path signed without the query string',
    fix: 'The @path line carries the path and, when present, "?" and the query exactly as sent (this profile departs from RFC 9421 §2.2.6 here).',
  },
  'path-decoded': {
    requirement: 'SIG-BASE-PATH',
    title: '@path signed percent-decoded',
    fix: 'The @path line is the path and query exactly as sent ("unmodified"): keep the percent-encoding (%20 stays %20).',
  },
  'authority-without-port': {
    requirement: 'SIG-BASE-AUTHORITY',
    title: '@authority signed without the port',
    fix: '@authority keeps any port other than 80 and 443 (host:port).',
  },
  'authority-with-port': {
    requirement: 'SIG-BASE-AUTHORITY',
    title: '@authority signed with the default port',
    fix: '@authority omits the ports 80 and 443.',
  },
  'method-lowercase': {
    requirement: 'SIG-BASE-METHOD',
    title: '@method signed in lower case',
    fix: '@method is the method in upper case, exactly as sent.',
  },
  'content-type-differs': {
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    title: 'content-type signed with a value other than the one sent',
    fix: 'Sign the Content-Type exactly as sent; HTTP libraries often add "; charset=utf-8" after the request was signed.',
  },
  'content-length-differs': {
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    title: 'content-length signed with a value other than the one sent',
    fix: 'Sign the Content-Length that is sent: the body length in bytes (not characters), set before signing.',
  },
  'body-reserialised': {
    requirement: 'DIGEST-EXACT-BYTES',
    title: 'body re-serialised between signing and sending',
    fix: 'Serialise the body once, then digest, sign and send exactly those bytes.',
  },
  'parameters-reordered': {
    requirement: 'SIG-BASE-PARAMS-LINE',
    title: 'signature parameters signed in another order than sent in Signature-Input',
    fix: 'The @signature-params line is the Signature-Input member exactly as sent: created, keyid, alg, nonce.',
  },
  'signature-params-with-label': {
    requirement: 'SIG-BASE-PARAMS-LINE',
    title: '@signature-params line signed with the label "sig1="',
    fix: 'The @signature-params value is the Inner List and parameters only, without "sig1=".',
  },
  'crlf-line-endings': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'base lines separated by CRLF',
    fix: 'Separate the lines of the base with LF ("\\n") only.',
  },
  'trailing-newline': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'base signed with a trailing newline',
    fix: 'The base ends with the @signature-params line, with no newline after it.',
  },
  'uppercase-header-names': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'header component names signed in upper or mixed case',
    fix: 'Component names in the base are lower case ("content-type", not "Content-Type").',
  },
  'empty-value-without-space': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: "a missing header's line signed without the space after the colon",
    fix: 'A missing header gives the line `"name": ` (colon, one space, nothing after).',
  },
  'empty-lines-omitted': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'lines of missing headers left out of the base',
    fix: 'Every covered component has its line; a missing header gives `"name": ` with an empty value.',
  },
} as const satisfies Record<string, { requirement: string; title: string; fix: string }>;

export type SignatureMistakeId = keyof typeof signatureMistakes;

/** A line of the base the server builds next to the line the client signed (secret values masked). */
export interface BaseLineDifference {
  /** 1-based line number in the expected base. */
  readonly line: number;
  /** The line the service builds, or undefined when the client signed an extra line. */
  readonly expected?: string;
  /** The line under which the signature verifies, or undefined when the client left it out. */
  readonly signed?: string;
}

/**
 * What `diagnoseSignature` found: the signature verifies as sent, verifies under a known signer
 * mistake, or under none.
 */
export type SignatureDiagnosis =
  | { readonly status: 'verified'; readonly attempts: 1 }
  /** The signature verifies under these mistakes (one, or a pair). */
  | {
      readonly status: 'found';
      readonly mistakes: readonly SignatureMistakeId[];
      readonly requirement: string;
      readonly message: string;
      readonly differences: readonly BaseLineDifference[];
      readonly attempts: number;
    }
  /** No known mistake explains it: another key, another secret, or changed content. */
  | { readonly status: 'unknown'; readonly message: string; readonly attempts: number }
  /** The request carries no signature this engine can test (missing or unparseable fields). */
  | { readonly status: 'not-diagnosable'; readonly message: string; readonly attempts: 0 };

/** What `diagnoseSignature` needs: the signer's public key and, optionally, the Ed25519 backend. */
export interface DiagnoseOptions {
  readonly publicKey: Ed25519PublicKey;
  /** Default nodeBackend. */
  readonly backend?: Ed25519Backend;
  /** Default the profile's `sig1`; falls back to the only label present. */
  readonly label?: string;
  /** Upper bound on signature verifications (default 4000). */
  readonly maxAttempts?: number;
}

interface Line {
  /** Lowercase component name (`@path`, `content-type`). */
  readonly name: string;
  /** The identifier as written in the base (`"@path"`, `"Content-Type"`). */
  readonly identifier: string;
  readonly value: string;
  readonly isField: boolean;
}

/** The signature base as data, so a mistake is a small change of one part. */
interface Draft {
  readonly lines: readonly Line[];
  readonly params: ReadonlyArray<readonly [string, BareItem]>;
  readonly paramsPrefix: string;
  readonly eol: string;
  readonly trailer: string;
  readonly emptyValueSpace: boolean;
  readonly omitEmptyLines: boolean;
}

/** One mistake, as a change that can be applied to the expected base or on top of another mistake. */
interface Alternative {
  readonly mistake: SignatureMistakeId;
  readonly apply: (draft: Draft) => Draft;
  /** Extra words for the message (e.g. which serialisation). */
  readonly detail?: string;
  /** Tried alone only, not in pairs (keeps the pair search near a thousand verifications). */
  readonly aloneOnly?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

// Serialising the parameters is the costly part of a render; a draft's params array is shared, so cache by identity.
const paramsCache = new WeakMap<object, string | null>();

function render(draft: Draft, components: readonly ComponentIdentifier[]): string | undefined {
  let value = paramsCache.get(draft.params);
  if (value === undefined) {
    const serialized = serializeSignatureParams(components, new Map(draft.params));
    value = serialized.ok ? serialized.value : null;
    paramsCache.set(draft.params, value);
  }
  if (value === null) return undefined;
  const params = { value };
  const lines: string[] = [];
  for (const l of draft.lines) {
    if (draft.omitEmptyLines && l.isField && l.value === '') continue;
    lines.push(
      l.value === '' && !draft.emptyValueSpace ? `${l.identifier}:` : `${l.identifier}: ${l.value}`,
    );
  }
  lines.push(`"@signature-params": ${draft.paramsPrefix}${params.value}`);
  return lines.join(draft.eol) + draft.trailer;
}

const withLine = (draft: Draft, name: string, value: string): Draft => ({
  ...draft,
  lines: draft.lines.map((l) => (l.name === name ? { ...l, value } : l)),
});
const setLine =
  (name: string, value: string) =>
  (draft: Draft): Draft =>
    withLine(draft, name, value);
const hasLine = (draft: Draft, name: string): boolean => draft.lines.some((l) => l.name === name);
const lineValue = (draft: Draft, name: string): string | undefined =>
  draft.lines.find((l) => l.name === name)?.value;

const titleCase = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/** Other serialisations of a JSON body that clients produce by parsing and re-serialising it. */
export function reserializedBodies(
  body: Uint8Array,
): Array<{ readonly how: string; readonly bytes: Uint8Array }> {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return [];
  }
  const out = new Map<string, string>();
  const add = (how: string, t: string): void => {
    if (t !== text && ![...out.values()].includes(t)) out.set(how, t);
  };
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(text);
    parsed = true;
  } catch {
    parsed = false;
  }
  if (parsed) {
    add('compact JSON (JSON.stringify)', JSON.stringify(value));
    add('JSON indented by 2 spaces', JSON.stringify(value, null, 2));
    add('JSON indented by 4 spaces', JSON.stringify(value, null, 4));
    add('JSON indented by tabs', JSON.stringify(value, null, '\t'));
    add('compact JSON with a trailing newline', `${JSON.stringify(value)}\n`);
    add('JSON indented by 2 spaces with a trailing newline', `${JSON.stringify(value, null, 2)}\n`);
    add('JSON with ", " and ": " separators (Python json.dumps default)', pythonDumps(value));
  }
  if (text.endsWith('\n')) add('the body without its trailing newline', text.replace(/\r?\n$/, ''));
  else add('the body with a trailing newline', `${text}\n`);
  if (text.includes('\n') && !text.includes('\r\n'))
    add('the body with CRLF line ends', text.replace(/\n/g, '\r\n'));
  add('an empty body', '');
  return [...out].map(([how, t]) => ({ how, bytes: encoder.encode(t) }));
}

/** json.dumps default separators: ", " and ": " (keys in insertion order, ASCII escapes aside). */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a mistake's proposals are computed from: the expected base, the request, its body's re-serialisations. */
interface MistakeContext {
  readonly draft: Draft;
  readonly request: HttpRequest;
  readonly variants: ReturnType<typeof reserializedBodies>;
}

/** One way of making a mistake: the change, and the words that tell it from the mistake's other ways. */
type Proposal = Omit<Alternative, 'mistake'>;

function pathWithoutQuery({ draft }: MistakeContext): Proposal[] {
  const path = lineValue(draft, '@path');
  if (path === undefined || !path.includes('?')) return [];
  return [{ apply: setLine('@path', path.slice(0, path.indexOf('?'))) }];
}

// Clients that sign a URL object's decoded path or query (a space where "%20" was sent).
function pathDecoded({ draft }: MistakeContext): Proposal[] {
  const path = lineValue(draft, '@path');
  if (path === undefined || !path.includes('%')) return [];
  const decodings = new Set<string>();
  for (const decode of [decodeURI, decodeURIComponent]) {
    try {
      decodings.add(decode(path));
    } catch {
      /* not decodable this way */
    }
  }
  decodings.delete(path);
  return [...decodings].map((d) => ({ apply: setLine('@path', d), detail: JSON.stringify(d) }));
}

/** The @authority line and its host when it carries a port (an IPv6 literal without a port has none). */
function signedAuthority({ draft, request }: MistakeContext) {
  const authority = lineValue(draft, '@authority');
  const uri = parseTargetUri(request.url);
  if (authority === undefined || !uri.ok) return undefined;
  const m = /^(.*):(\d+)$/.exec(authority);
  const host = m && !authority.endsWith(']') ? m[1]! : undefined;
  return { authority, host, port: uri.value.port, scheme: uri.value.scheme };
}

function authorityWithoutPort(context: MistakeContext): Proposal[] {
  const host = signedAuthority(context)?.host;
  return host === undefined ? [] : [{ apply: setLine('@authority', host) }];
}

function authorityWithPort(context: MistakeContext): Proposal[] {
  const signed = signedAuthority(context);
  if (signed === undefined || signed.host !== undefined) return [];
  const ports =
    signed.port === 80 || signed.port === 443
      ? [signed.port]
      : signed.scheme === 'https'
        ? [443]
        : [80];
  return ports.map((port) => ({
    apply: setLine('@authority', `${signed.authority}:${port}`),
    detail: `":${port}"`,
  }));
}

function methodLowercase({ draft }: MistakeContext): Proposal[] {
  const method = lineValue(draft, '@method');
  if (method === undefined || method === method.toLowerCase()) return [];
  return [{ apply: setLine('@method', method.toLowerCase()) }];
}

const CHARSET_SUFFIXES = ['; charset=utf-8', ';charset=utf-8', '; charset=UTF-8', ';charset=UTF-8'];

function contentTypeDiffers({ draft }: MistakeContext): Proposal[] {
  const contentType = lineValue(draft, 'content-type');
  if (contentType === undefined) return [];
  const candidates = new Set<string>();
  if (contentType.includes(';'))
    candidates.add(contentType.slice(0, contentType.indexOf(';')).trim());
  if (contentType !== '') {
    candidates.add('');
    if (!contentType.includes(';'))
      for (const suffix of CHARSET_SUFFIXES) candidates.add(contentType + suffix);
  } else candidates.add('application/json');
  candidates.delete(contentType);
  return [...candidates].map((c) => ({
    apply: setLine('content-type', c),
    detail: `signed ${JSON.stringify(c)}`,
  }));
}

function contentLengthDiffers({ draft, request, variants }: MistakeContext): Proposal[] {
  const contentLength = lineValue(draft, 'content-length');
  if (contentLength === undefined) return [];
  const lengths = new Map<string, string>([
    [
      contentLength === '' ? String(request.body.length) : '',
      contentLength === '' ? 'the byte length of the body' : 'an empty value',
    ],
  ]);
  try {
    const chars = String(utf8.decode(request.body).length);
    if (!lengths.has(chars))
      lengths.set(
        chars,
        'the length of the body text in UTF-16 code units (string length), not in bytes',
      );
  } catch {
    /* not text */
  }
  for (const v of variants)
    if (!lengths.has(String(v.bytes.length)))
      lengths.set(String(v.bytes.length), `the length of ${v.how}`);
  lengths.delete(contentLength);
  return [...lengths].map(([l, why]) => ({
    apply: setLine('content-length', l),
    detail: `signed ${JSON.stringify(l)}: ${why}`,
  }));
}

function bodyReserialised({ draft, variants }: MistakeContext): Proposal[] {
  if (!hasLine(draft, 'content-digest')) return [];
  const withLength = hasLine(draft, 'content-length');
  return variants.flatMap((v) => {
    const digest = `sha-512=:${Buffer.from(digestBytes(v.bytes, 'sha-512')).toString('base64')}:`;
    const detail = `signed over ${v.how}`;
    const digestOnly: Proposal = { apply: setLine('content-digest', digest), detail };
    if (!withLength) return [digestOnly];
    const length = String(v.bytes.length);
    return [
      digestOnly,
      {
        apply: (d) => withLine(withLine(d, 'content-digest', digest), 'content-length', length),
        detail,
      },
    ];
  });
}

// In pairs only the orders clients really use: the profile's order and the reverse of the one sent.
function parametersReordered({ draft }: MistakeContext): Proposal[] {
  const profileOrder = serviceProfile.parameterOrder.join();
  const reversed = [...draft.params]
    .reverse()
    .map(([k]) => k)
    .join();
  return permutations(draft.params, 5).map((order) => {
    const names = order.map(([k]) => k);
    const aloneOnly = names.join() !== profileOrder && names.join() !== reversed;
    return {
      apply: (d: Draft) => ({ ...d, params: order }),
      detail: `signed ${names.join(', ')}`,
      ...(aloneOnly ? { aloneOnly } : {}),
    };
  });
}

function uppercaseHeaderNames({ draft, request }: MistakeContext): Proposal[] {
  const fields = draft.lines.filter((l) => l.isField);
  if (fields.length === 0) return [];
  const titleCased: Proposal = {
    apply: (d) => ({
      ...d,
      lines: d.lines.map((l) => (l.isField ? { ...l, identifier: `"${titleCase(l.name)}"` } : l)),
    }),
    detail: 'Title-Case',
  };
  const sentName = new Map<string, string>();
  for (const l of fields) {
    const sent = request.headers.find(([n]) => n.toLowerCase() === l.name)?.[0];
    if (sent !== undefined && sent !== l.name && sent !== titleCase(l.name))
      sentName.set(l.name, sent);
  }
  if (sentName.size === 0) return [titleCased];
  const asSent: Proposal = {
    apply: (d) => ({
      ...d,
      lines: d.lines.map((l) =>
        sentName.has(l.name) ? { ...l, identifier: `"${sentName.get(l.name)!}"` } : l,
      ),
    }),
    detail: 'as sent',
  };
  return [titleCased, asSent];
}

/** Only when a covered header is missing (its line has an empty value). */
const whenEmptyField =
  (apply: (d: Draft) => Draft) =>
  ({ draft }: MistakeContext): Proposal[] =>
    draft.lines.some((l) => l.isField && l.value === '') ? [{ apply }] : [];

/**
 * Each mistake's ways for this request, in the order they are tried: the first single mistake (then the first pair)
 * under which the signature verifies is the one reported, so the order is part of the behaviour.
 */
const proposeMistake = {
  'path-without-query': pathWithoutQuery,
  'path-decoded': pathDecoded,
  'authority-without-port': authorityWithoutPort,
  'authority-with-port': authorityWithPort,
  'method-lowercase': methodLowercase,
  'content-type-differs': contentTypeDiffers,
  'content-length-differs': contentLengthDiffers,
  'body-reserialised': bodyReserialised,
  'parameters-reordered': parametersReordered,
  'signature-params-with-label': () => [
    { apply: (d) => ({ ...d, paramsPrefix: `${serviceProfile.label}=` }) },
  ],
  'crlf-line-endings': () => [{ apply: (d) => ({ ...d, eol: '\r\n' }) }],
  'trailing-newline': () => [
    { apply: (d) => ({ ...d, trailer: '\n' }), detail: 'LF' },
    { apply: (d) => ({ ...d, trailer: '\r\n' }), detail: 'CRLF' },
  ],
  'uppercase-header-names': uppercaseHeaderNames,
  'empty-value-without-space': whenEmptyField((d) => ({ ...d, emptyValueSpace: false })),
  'empty-lines-omitted': whenEmptyField((d) => ({ ...d, omitEmptyLines: true })),
} as const satisfies Record<SignatureMistakeId, (context: MistakeContext) => Proposal[]>;

/** The mistakes worth trying for this request, each computed once from the expected base. */
function alternatives(draft: Draft, request: HttpRequest): Alternative[] {
  const context: MistakeContext = { draft, request, variants: reserializedBodies(request.body) };
  return Object.entries(proposeMistake).flatMap(([mistake, propose]) =>
    propose(context).map((p: Proposal) => ({ mistake: mistake as SignatureMistakeId, ...p })),
  );
}

/** Pairs that change the same base line (the second would undo the first): never tried together. */
const CONFLICTS = new Set([
  'content-length-differs body-reserialised',
  'empty-value-without-space empty-lines-omitted',
]);

/** Every other order of the parameters (all of them up to `max` parameters; else only the reverse). */
function permutations<T>(items: readonly T[], max: number): T[][] {
  if (items.length < 2) return [];
  if (items.length > max) return [[...items].reverse()];
  const all: T[][] = [];
  const walk = (rest: readonly T[], acc: T[]): void => {
    if (rest.length === 0) {
      all.push(acc);
      return;
    }
    rest.forEach((item, i) => walk([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, item]));
  };
  walk(items, []);
  return all.slice(1); // the first is the original order
}

/** The lines of two bases that differ (a longest-common-subsequence diff); the secret line's value is masked. */
export function diffBases(expected: string, signed: string): BaseLineDifference[] {
  const show = (line: string): string => {
    const masked = line.replace(/^("x-application-secret"\s*:\s?)[^\r]+/i, `$1${REDACTED}`);
    return /[\r\n]/.test(masked) || masked === '' ? JSON.stringify(masked) : masked;
  };
  const a = expected.split('\n');
  const b = signed.split('\n');
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..] (bases have about ten lines).
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: BaseLineDifference[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
    } else if (i < a.length && j < b.length && lcs[i + 1]![j + 1] === lcs[i]![j]) {
      out.push({ line: i + 1, expected: show(a[i]!), signed: show(b[j]!) });
      i += 1;
      j += 1;
    } else if (j >= b.length || (i < a.length && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      out.push({ line: i + 1, expected: show(a[i]!) });
      i += 1;
    } else {
      out.push({ line: i + 1, signed: show(b[j]!) });
      j += 1;
    }
  }
  return out;
}

function buildDraft(
  request: HttpRequest,
  components: readonly ComponentIdentifier[],
  params: ReadonlyMap<string, BareItem>,
): Draft | string {
  const uri = parseTargetUri(request.url);
  if (!uri.ok) return `the target URI cannot be read: ${uri.message}`;
  const lines: Line[] = [];
  for (const c of components) {
    const v = componentValue(c, request, uri.value, serviceProfile.signatureBaseOptions);
    if (!v.ok) return `component ${c.serialized} has no value: ${v.message}`;
    lines.push({
      name: c.name,
      identifier: c.serialized,
      value: v.value,
      isField: !c.name.startsWith('@'),
    });
  }
  return {
    lines,
    params: [...params],
    paramsPrefix: '',
    eol: '\n',
    trailer: '',
    emptyValueSpace: true,
    omitEmptyLines: false,
  };
}

/** The signature input and bytes under the label, or why there are none. */
function readSignature(
  request: HttpRequest,
  label: string | undefined,
):
  | {
      components: readonly ComponentIdentifier[];
      params: ReadonlyMap<string, BareItem>;
      signature: Uint8Array;
    }
  | string {
  const inputText = getFieldValues(request.headers, 'signature-input').join(', ');
  const sigText = getFieldValues(request.headers, 'signature').join(', ');
  if (inputText === '' || sigText === '')
    return 'the request has no Signature-Input or no Signature';
  const inputs = parseSignatureInput(inputText);
  if (!inputs.ok) return inputs.message;
  const sigs = parseSignature(sigText);
  if (!sigs.ok) return sigs.message;
  const wanted = label ?? serviceProfile.label;
  const chosen = inputs.value.has(wanted)
    ? wanted
    : inputs.value.size === 1
      ? [...inputs.value.keys()][0]!
      : undefined;
  if (chosen === undefined) return `Signature-Input has no "${wanted}" member`;
  const input = inputs.value.get(chosen)!;
  const signature =
    sigs.value.get(chosen) ?? (sigs.value.size === 1 ? [...sigs.value.values()][0] : undefined);
  if (signature === undefined) return `Signature has no "${chosen}" member`;
  if (signature.length !== 64) return `the signature is ${signature.length} bytes, not 64`;
  return { components: input.components, params: input.params, signature };
}

function describe(found: readonly Alternative[]): string {
  return found
    .map((a) => {
      const m = signatureMistakes[a.mistake];
      return `${m.title}${a.detail !== undefined ? ` (${a.detail})` : ''}. ${m.fix}`;
    })
    .join(' Together with: ');
}

/** What the search starts from: the signature and the base the service builds, as data and as text. */
interface Subject {
  readonly components: readonly ComponentIdentifier[];
  readonly signature: Uint8Array;
  readonly draft: Draft;
  readonly expected: string;
}

/** Reads the signature and builds the expected base, or says why the request cannot be diagnosed. */
function readSubject(request: HttpRequest, label: string | undefined): Subject | string {
  let sig: ReturnType<typeof readSignature>;
  try {
    sig = readSignature(request, label);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof sig === 'string') return sig;
  const draft = buildDraft(request, sig.components, sig.params);
  if (typeof draft === 'string') return draft;
  const expected = render(draft, sig.components);
  if (expected === undefined) return 'the signature parameters cannot be serialised';
  return { components: sig.components, signature: sig.signature, draft, expected };
}

/** Whether two mistakes may be tried together: of different kinds, neither alone-only, not undoing each other. */
function canPair(first: Alternative, second: Alternative): boolean {
  return (
    second.mistake !== first.mistake &&
    first.aloneOnly !== true &&
    second.aloneOnly !== true &&
    !CONFLICTS.has(`${first.mistake} ${second.mistake}`)
  );
}

/** The bases to try, in order: each single mistake, then each unordered pair of mistakes that may go together. */
function* candidates(
  draft: Draft,
  singles: readonly Alternative[],
): Generator<{ readonly chain: readonly Alternative[]; readonly draft: Draft }> {
  for (const alt of singles) yield { chain: [alt], draft: alt.apply(draft) };
  // Pairs: a second mistake of another kind on top of each first one (each unordered pair once).
  for (let i = 0; i < singles.length; i++) {
    const first = singles[i]!;
    const once = first.apply(draft);
    for (const second of singles.slice(i + 1))
      if (canPair(first, second)) yield { chain: [first, second], draft: second.apply(once) };
  }
}

function foundDiagnosis(
  chain: readonly Alternative[],
  expected: string,
  base: string,
  attempts: number,
): SignatureDiagnosis {
  const mistakes = [...new Set(chain.map((a) => a.mistake))];
  return {
    status: 'found',
    mistakes,
    requirement: signatureMistakes[mistakes[0]!].requirement,
    message: `the signature verifies only over a base with this mistake: ${describe(chain)}`,
    differences: diffBases(expected, base),
    attempts,
  };
}

/**
 * Verifies the request's signature over the base the service builds; when it fails, tries each known client
 * mistake, then each pair of mistakes from different parts of the base, and reports the first under which the
 * signature verifies. Never throws for hostile input.
 */
export function diagnoseSignature(
  request: HttpRequest,
  options: DiagnoseOptions,
): SignatureDiagnosis {
  const backend = options.backend ?? nodeBackend;
  const maxAttempts = options.maxAttempts ?? 4000;
  const subject = readSubject(request, options.label);
  if (typeof subject === 'string')
    return { status: 'not-diagnosable', message: subject, attempts: 0 };
  const verifies = (base: string | undefined): base is string =>
    base !== undefined && verifySignatureBase(base, subject.signature, options.publicKey, backend);
  if (verifies(subject.expected)) return { status: 'verified', attempts: 1 };
  let attempts = 1;
  for (const candidate of candidates(subject.draft, alternatives(subject.draft, request))) {
    if (attempts >= maxAttempts) break;
    const base = render(candidate.draft, subject.components);
    attempts += 1;
    if (verifies(base)) return foundDiagnosis(candidate.chain, subject.expected, base, attempts);
  }
  return {
    status: 'unknown',
    message:
      attempts >= maxAttempts
        ? `no known mistake explains the signature within ${maxAttempts} attempts`
        : 'no known mistake explains the signature: it was made with another key than the one configured for this key id, over another application secret, or over other request content',
    attempts,
  };
}

/**
 * What `diagnoseContentDigest` found: the digest matches, a known mistake that explains it, or
 * nothing known.
 */
export type ContentDigestDiagnosis =
  | { readonly status: 'matches' }
  | { readonly status: 'found'; readonly how: string; readonly message: string }
  | { readonly status: 'unknown'; readonly message: string };

/** When the sha-512 Content-Digest does not match the body: over which serialisation of the body it was taken. */
export function diagnoseContentDigest(
  headerValue: string,
  body: Uint8Array,
): ContentDigestDiagnosis {
  const parsed = parseContentDigest(headerValue);
  if (!parsed.ok) return { status: 'unknown', message: parsed.message };
  const got = parsed.digests.get('sha-512');
  if (got === undefined)
    return { status: 'unknown', message: 'Content-Digest has no "sha-512" member' };
  const same = (bytes: Uint8Array): boolean =>
    Buffer.from(digestBytes(bytes, 'sha-512')).equals(Buffer.from(got));
  if (same(body)) return { status: 'matches' };
  for (const v of reserializedBodies(body)) {
    if (same(v.bytes)) {
      return {
        status: 'found',
        how: v.how,
        message: `the sha-512 digest was computed over ${v.how}, not over the ${body.length} bytes sent: the body was re-serialised between digesting and sending`,
      };
    }
  }
  return {
    status: 'unknown',
    message:
      'the sha-512 digest matches neither the body sent nor any usual re-serialisation of it',
  };
}

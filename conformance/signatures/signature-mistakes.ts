// The client mistakes in signing, as ONE table: each entry says which rule the mistake breaks, how to fix it, and how
// it builds the signature base wrongly from the base the service builds (the base as data, so a mistake is a small
// change of one part). The diagnosis searches these ways; the server audit's forgeries sign with them.
import { digestBytes } from '../../src/digest/content-digest.js';
import type { HttpRequest } from '../../src/http/message.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import type { BareItem } from '../../src/structured-fields/structured-fields.js';
import type { ComponentIdentifier } from '../../src/signatures/component-identifier.js';
import { componentValue } from '../../src/signatures/signature-base.js';
import { serializeSignatureParams } from '../../src/signatures/signature-params.js';
import { parseTargetUri } from '../../src/signatures/target-uri.js';
import { reserializedBodies } from './body-reserialisations.js';

interface Line {
  /** Lowercase component name (`@path`, `content-type`). */
  readonly name: string;
  /** The identifier as written in the base (`"@path"`, `"Content-Type"`). */
  readonly identifier: string;
  readonly value: string;
  readonly isField: boolean;
}

/** The signature base as data, so a mistake is a small change of one part. */
export interface Draft {
  readonly lines: readonly Line[];
  readonly params: ReadonlyArray<readonly [string, BareItem]>;
  readonly paramsPrefix: string;
  readonly eol: string;
  readonly trailer: string;
  readonly emptyValueSpace: boolean;
  readonly omitEmptyLines: boolean;
}

/** One way of making a mistake: the change, and the words that tell it from the mistake's other ways. */
export interface Proposal {
  readonly apply: (draft: Draft) => Draft;
  /** Extra words for the message (e.g. which serialisation). */
  readonly detail?: string;
  /** Tried alone only, not in pairs (keeps the pair search near a thousand verifications). */
  readonly aloneOnly?: boolean;
}

/** One mistake, as a change that can be applied to the expected base or on top of another mistake. */
export interface Alternative extends Proposal {
  readonly mistake: SignatureMistakeId;
}

/** What a mistake's proposals are computed from: the expected base, the request, its body's re-serialisations. */
export interface MistakeContext {
  readonly draft: Draft;
  readonly request: HttpRequest;
  readonly variants: ReturnType<typeof reserializedBodies>;
}

/** One entry of the table. */
export interface MistakeEntry {
  /** The rule the client broke (the diagnosis names it). */
  readonly requirement: string;
  /** The server's rule that makes accepting a request signed with this mistake wrong, where it is not `requirement`. */
  readonly refusedBy?: string;
  readonly title: string;
  readonly fix: string;
  /** How the mistake builds the base wrongly for this request: its ways in the order tried; [] where it changes nothing. */
  readonly propose: (context: MistakeContext) => Proposal[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Serialising the parameters is the costly part of a render; a draft's params array is shared, so cache by identity.
const paramsCache = new WeakMap<object, string | null>();

export function render(
  draft: Draft,
  components: readonly ComponentIdentifier[],
): string | undefined {
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

/**
 * THE table of client mistakes (public API: ids never renamed). Each entry is one mistake: the rule it breaks, how it is
 * explained to the client, and how it builds the base wrongly (`propose`). The diagnosis tries these ways over the
 * base the service builds (diagnose-signature.ts); the server audit signs a request with them and expects a refusal
 * (mistaken-signature.ts, checks/server/client-mistake-forgeries.ts). The order is part of the behaviour: the first
 * single mistake (then the first pair) under which a signature verifies is the one the diagnosis reports.
 */
export const signatureMistakes = {
  'path-without-query': {
    requirement: 'SIG-BASE-PATH',
    title: '@path signed without the query string',
    fix: 'The @path line carries the path and, when present, "?" and the query exactly as sent (this profile departs from RFC 9421 §2.2.6 here).',
    propose: pathWithoutQuery,
  },
  'path-decoded': {
    requirement: 'SIG-BASE-PATH',
    title: '@path signed percent-decoded',
    fix: 'The @path line is the path and query exactly as sent ("unmodified"): keep the percent-encoding (%20 stays %20).',
    propose: pathDecoded,
  },
  'authority-without-port': {
    requirement: 'SIG-BASE-AUTHORITY',
    title: '@authority signed without the port',
    fix: '@authority keeps any port other than 80 and 443 (host:port).',
    propose: authorityWithoutPort,
  },
  'authority-with-port': {
    requirement: 'SIG-BASE-AUTHORITY',
    title: '@authority signed with the default port',
    fix: '@authority omits the ports 80 and 443.',
    propose: authorityWithPort,
  },
  'method-lowercase': {
    requirement: 'SIG-BASE-METHOD',
    title: '@method signed in lower case',
    fix: '@method is the method in upper case, exactly as sent.',
    propose: methodLowercase,
  },
  'content-type-differs': {
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    title: 'content-type signed with a value other than the one sent',
    fix: 'Sign the Content-Type exactly as sent; HTTP libraries often add "; charset=utf-8" after the request was signed.',
    propose: contentTypeDiffers,
  },
  'content-length-differs': {
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    title: 'content-length signed with a value other than the one sent',
    fix: 'Sign the Content-Length that is sent: the body length in bytes (not characters), set before signing.',
    propose: contentLengthDiffers,
  },
  'body-reserialised': {
    requirement: 'DIGEST-EXACT-BYTES',
    refusedBy: 'SIG-BASE-CONTENT-DIGEST',
    title: 'body re-serialised between signing and sending',
    fix: 'Serialise the body once, then digest, sign and send exactly those bytes.',
    propose: bodyReserialised,
  },
  'parameters-reordered': {
    requirement: 'SIG-BASE-PARAMS-LINE',
    title: 'signature parameters signed in another order than sent in Signature-Input',
    fix: 'The @signature-params line is the Signature-Input member exactly as sent: created, keyid, alg, nonce.',
    propose: parametersReordered,
  },
  'signature-params-with-label': {
    requirement: 'SIG-BASE-PARAMS-LINE',
    title: '@signature-params line signed with the label "sig1="',
    fix: 'The @signature-params value is the Inner List and parameters only, without "sig1=".',
    propose: () => [{ apply: (d) => ({ ...d, paramsPrefix: `${serviceProfile.label}=` }) }],
  },
  'crlf-line-endings': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'base lines separated by CRLF',
    fix: 'Separate the lines of the base with LF ("\\n") only.',
    propose: () => [{ apply: (d) => ({ ...d, eol: '\r\n' }) }],
  },
  'trailing-newline': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'base signed with a trailing newline',
    fix: 'The base ends with the @signature-params line, with no newline after it.',
    propose: () => [
      { apply: (d) => ({ ...d, trailer: '\n' }), detail: 'LF' },
      { apply: (d) => ({ ...d, trailer: '\r\n' }), detail: 'CRLF' },
    ],
  },
  'uppercase-header-names': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'header component names signed in upper or mixed case',
    fix: 'Component names in the base are lower case ("content-type", not "Content-Type").',
    propose: uppercaseHeaderNames,
  },
  'empty-value-without-space': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: "a missing header's line signed without the space after the colon",
    fix: 'A missing header gives the line `"name": ` (colon, one space, nothing after).',
    propose: whenEmptyField((d) => ({ ...d, emptyValueSpace: false })),
  },
  'empty-lines-omitted': {
    requirement: 'SIG-BASE-LINE-FORMAT',
    title: 'lines of missing headers left out of the base',
    fix: 'Every covered component has its line; a missing header gives `"name": ` with an empty value.',
    propose: whenEmptyField((d) => ({ ...d, omitEmptyLines: true })),
  },
} as const satisfies Record<string, MistakeEntry>;

export type SignatureMistakeId = keyof typeof signatureMistakes;

/** Every mistake's id, in the table's order. */
export const signatureMistakeIds = Object.keys(signatureMistakes) as SignatureMistakeId[];

/** The requirement whose text makes a server wrong to accept a request signed with `mistake`. */
export function refusalRequirement(mistake: SignatureMistakeId): string {
  const entry: MistakeEntry = signatureMistakes[mistake];
  return entry.refusedBy ?? entry.requirement;
}

/** The mistakes worth trying for this request, each computed once from the expected base. */
export function alternatives(draft: Draft, request: HttpRequest): Alternative[] {
  const context: MistakeContext = { draft, request, variants: reserializedBodies(request.body) };
  return signatureMistakeIds.flatMap((mistake) =>
    signatureMistakes[mistake].propose(context).map((p: Proposal) => ({ mistake, ...p })),
  );
}

export function buildDraft(
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

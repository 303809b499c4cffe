// The differential fuzzer's inputs (npm run fuzz:diff): verify cases built with fast-check from the RFC 9421 and
// RFC 8941 grammars. Three sources: a request signed under the profile (valid), a request signed validly over a
// Signature-Input drawn from the grammar (any label, covered list and parameters: RFC-valid, often off-profile), and
// a verify case of the vectors; any of them may then get one near-valid mutation of a header's text.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { HttpRequest } from '../../src/http/message.js';
import { parseEd25519PrivateKey } from '../../src/keys/index.js';
import { applySignedHeaders, signRequestWithOverrides } from '../../src/profile/sign-request.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import { APP_A } from '../../vectors/build/keys.js';
import { callerA, NOW, toWire } from '../../vectors/build/requests.js';
import type { KeysFile, VectorCase, VectorFile, WireRequest } from '../../vectors/format.js';

export interface FuzzCase {
  /** Where it came from: `profile`, `grammar` or `vector:<id>`, and the mutation applied, if any. */
  readonly origin: string;
  readonly request: WireRequest;
  readonly now: number;
  readonly nonceState: readonly string[];
  /** A registry name of keys.json. */
  readonly verifier: string;
  /** For a profile-signed case: the `signature-base` question (the request without its signature headers). */
  readonly base?: {
    readonly request: WireRequest;
    readonly parameters: {
      readonly created: number;
      readonly keyid: string;
      readonly nonce: string;
    };
  };
}

const vectorsDir = new URL('../../vectors/', import.meta.url);
export const KEYS = JSON.parse(readFileSync(new URL('keys.json', vectorsDir), 'utf8')) as KeysFile;
const VERIFY_CASES = (
  JSON.parse(readFileSync(new URL('request-signing.json', vectorsDir), 'utf8')) as VectorFile
).cases.filter((c): c is VectorCase & { op: 'verify' } => c.op === 'verify');

const caller = callerA(parseEd25519PrivateKey(KEYS.keys[APP_A.key]!.private!['pkcs8-pem']));

const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE', 'QUERY', 'OPTIONS'];
const HOSTS = [
  'api.sandbox.payments.example',
  'API.Sandbox.Payments.Example',
  '127.0.0.1',
  '[::1]',
];
/** Every character of the base64 and base64url alphabets, and a few more printable ones. */
const NONCE = /^[A-Za-z0-9+/=_-]{1,50}$|^[ -~]{0,52}$/;

const requestArb = fc.record({
  method: fc.constantFrom(...METHODS),
  scheme: fc.constantFrom('https', 'http'),
  host: fc.constantFrom(...HOSTS),
  port: fc.constantFrom('', ':443', ':80', ':8443'),
  path: fc.stringMatching(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]{0,8}){1,3}$/),
  query: fc.option(fc.stringMatching(/^[A-Za-z0-9=&%+._~/?-]{0,12}$/), { nil: undefined }),
  body: fc.oneof(fc.constant(''), fc.json({ maxDepth: 1 }), fc.string({ maxLength: 12 })),
  contentType: fc.boolean(),
  titleCase: fc.boolean(),
});

type RequestShape = {
  method: string;
  scheme: string;
  host: string;
  port: string;
  path: string;
  query: string | undefined;
  body: string;
  contentType: boolean;
  titleCase: boolean;
};

function requestOf(s: RequestShape): HttpRequest {
  const url = `${s.scheme}://${s.host}${s.port}${s.path}${s.query === undefined ? '' : `?${s.query}`}`;
  const headers: Array<readonly [string, string]> = [['accept', 'application/json']];
  if (s.contentType) headers.push(['content-type', 'application/json']);
  return { method: s.method, url, headers, body: new TextEncoder().encode(s.body) };
}

function titleCased(r: WireRequest): WireRequest {
  const up = (n: string): string =>
    n.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
  return { ...r, headers: r.headers.map(([n, v]) => [up(n), v] as const) };
}

/** Signed by application A: the profile's parameters and list unless the grammar gave others. */
function signed(
  s: RequestShape,
  params: ReadonlyArray<readonly [string, string | number]>,
  components: readonly string[] = serviceProfile.componentNames,
  label = serviceProfile.label,
): WireRequest | undefined {
  const req = requestOf(s);
  try {
    const result = signRequestWithOverrides(req, caller, { params, components, label });
    const wire = toWire(applySignedHeaders(req, result.headers, result.removed));
    return s.titleCase ? titleCased(wire) : wire;
  } catch {
    return undefined; // no base for this covered list (RFC 9421 §2.5): not an input
  }
}

const nonceArb = fc.stringMatching(NONCE);
const createdArb = fc.integer({ min: -320, max: 320 }).map((d) => NOW + d);

const profileArb = fc.tuple(requestArb, createdArb, nonceArb).map(([s, created, nonce]) => ({
  origin: 'profile',
  request: signed(s, [
    ['created', created],
    ['keyid', caller.keyId],
    ['alg', serviceProfile.alg],
    ['nonce', nonce],
  ]),
  parameters: { created, keyid: caller.keyId, nonce },
}));

/** The request as the signature-base op takes it: headers final, no signature headers. */
function unsignedWire(r: WireRequest): WireRequest {
  const signatureHeader = (n: string): boolean => /^signature(-input)?$/i.test(n);
  return { ...r, headers: r.headers.filter(([n]) => !signatureHeader(n)) };
}

/** RFC 9421 §2.3's parameters and an unknown one, in any order, each possibly twice. */
const paramArb = fc.oneof(
  createdArb.map((v) => ['created', v] as const),
  fc.constantFrom(caller.keyId, 'other-key').map((v) => ['keyid', v] as const),
  fc.constantFrom('ed25519', 'ED25519', 'rsa-pss-sha512').map((v) => ['alg', v] as const),
  nonceArb.map((v) => ['nonce', v] as const),
  fc.integer({ min: NOW - 10, max: NOW + 600 }).map((v) => ['expires', v] as const),
  fc.constantFrom('web-bot-auth', 'x').map((v) => ['tag', v] as const),
  fc.constantFrom('1', 'y').map((v) => ['x-unknown', v] as const),
);
const componentArb = fc.constantFrom(
  ...serviceProfile.componentNames,
  '@query',
  '@target-uri',
  '@scheme',
  '@request-target',
  'accept',
);

const grammarArb = fc
  .tuple(
    requestArb,
    fc.array(paramArb, { maxLength: 6 }),
    fc.oneof(
      fc.constant([...serviceProfile.componentNames]),
      fc.array(componentArb, { maxLength: 10 }),
    ),
    fc.constantFrom('sig1', 'sig1', 'sig2', 'sig-b26'),
  )
  .map(([s, params, components, label]) => ({
    origin: 'grammar',
    request: signed(s, params, components, label),
  }));

const vectorArb = fc.constantFrom(...VERIFY_CASES).map((c) => ({
  origin: `vector:${c.id}`,
  request: c.input.request as WireRequest,
  now: c.input.now,
  nonceState: c.input.nonceState,
}));

/** The characters RFC 8941 and RFC 9421 give a meaning to, and a few that should never appear. */
const GRAMMAR_CHARS = [...';=",() :*?/+-_.@%0129aZ', '\t', '\u00e9', '\\'];

const mutationArb = fc.record({
  header: fc.constantFrom('signature-input', 'signature', 'content-digest', 'x-application-id'),
  op: fc.constantFrom(
    'insert',
    'delete',
    'replace',
    'duplicate-line',
    'drop-line',
    'append-param',
    'append-member',
  ),
  at: fc.nat(),
  char: fc.constantFrom(...GRAMMAR_CHARS),
  /** A bare item of each RFC 8941 type, and RFC 9651's Date and Display String. */
  value: fc.constantFrom('"s"', '?1', 'tok', ':AQ==:', '1.5', '-0', '@1767225600', '%"caf%c3%a9"'),
  key: fc.constantFrom('x', 'nonce', 'created', 'alg', 'sig2'),
});

interface Mutation {
  readonly header: string;
  readonly op: string;
  readonly at: number;
  readonly char: string;
  readonly value: string;
  readonly key: string;
}

/** One near-valid change of one header line's text (or the line doubled or dropped). */
export function mutate(r: WireRequest, m: Mutation): WireRequest {
  const i = r.headers.findIndex(([n]) => n.toLowerCase() === m.header);
  if (i < 0) return r;
  const [name, value] = r.headers[i]!;
  const at = value.length === 0 ? 0 : m.at % (value.length + 1);
  const edit: Record<string, () => Array<readonly [string, string]>> = {
    insert: () => [[name, value.slice(0, at) + m.char + value.slice(at)]],
    delete: () => [[name, value.slice(0, at) + value.slice(at + 1)]],
    replace: () => [[name, value.slice(0, at) + m.char + value.slice(at + 1)]],
    'duplicate-line': () => [
      [name, value],
      [name, value],
    ],
    'drop-line': () => [],
    'append-param': () => [[name, `${value};${m.key}=${m.value}`]],
    'append-member': () => [[name, `${value}, ${m.key}=${m.value}`]],
  };
  const headers = [...r.headers.slice(0, i), ...edit[m.op]!(), ...r.headers.slice(i + 1)];
  return { ...r, headers };
}

/** The fuzzer's input: a valid, grammar-drawn or vector case, then (half the time) one mutation. */
export const fuzzCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    fc.oneof(profileArb, grammarArb, vectorArb),
    fc.option(mutationArb, { nil: undefined, freq: 2 }),
  )
  .filter(([c]) => c.request !== undefined)
  .map(([c, m]) => {
    const request = m ? mutate(c.request!, m) : c.request!;
    return {
      origin: m ? `${c.origin} + ${m.op} ${m.header}` : c.origin,
      request,
      now: 'now' in c ? c.now : NOW,
      nonceState: 'nonceState' in c ? c.nonceState : [],
      verifier: 'default',
      ...('parameters' in c
        ? { base: { request: unsignedWire(request), parameters: c.parameters } }
        : {}),
    };
  });

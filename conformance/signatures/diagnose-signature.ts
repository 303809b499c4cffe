// "Why did the signature fail": rebuilds the signature base under the mistakes clients really make and names the
// one (or the pair) under which the client's Ed25519 signature verifies, with the base lines that differ.
// Also explains a Content-Digest that does not match the body (which serialisation of the body it was taken over).
import { digestBytes, parseContentDigest } from '../../src/digest/content-digest.js';
import type { Ed25519Backend, Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { nodeBackend } from '../../src/ed25519/node-backend.js';
import type { HttpRequest } from '../../src/http/message.js';
import { verifySignatureBase } from '../../src/signatures/create-signature.js';
import { reserializedBodies } from './body-reserialisations.js';
import { readSubject } from './mistaken-signature.js';
import { REDACTED } from '../report/redact.js';
import {
  alternatives,
  render,
  signatureMistakes,
  type Alternative,
  type Draft,
  type SignatureMistakeId,
} from './signature-mistakes.js';

export { reserializedBodies } from './body-reserialisations.js';
export { signatureMistakes, type SignatureMistakeId } from './signature-mistakes.js';

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

/** Pairs that change the same base line (the second would undo the first): never tried together. */
const CONFLICTS = new Set([
  'content-length-differs body-reserialised',
  'empty-value-without-space empty-lines-omitted',
]);

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

function describe(found: readonly Alternative[]): string {
  return found
    .map((a) => {
      const m = signatureMistakes[a.mistake];
      return `${m.title}${a.detail !== undefined ? ` (${a.detail})` : ''}. ${m.fix}`;
    })
    .join(' Together with: ');
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

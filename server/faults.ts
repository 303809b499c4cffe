// The reference service's deliberate faults: each breaks exactly one behaviour, so every conformance check can be shown to fail.
import type { FaultEntry } from './fault-catalogue/fault-entry.js';
import { signingFaults } from './fault-catalogue/signing.js';
import { payoutFaults } from './fault-catalogue/payouts.js';
import { refundFaults } from './fault-catalogue/refunds.js';
import { webhookFaults } from './fault-catalogue/webhooks.js';
import { responseFaults } from './fault-catalogue/responses.js';
import { methodFaults } from './fault-catalogue/by-method.js';
import { explorerOnlyFaults } from './fault-catalogue/explorer-only.js';
import { forgeryFaults } from './fault-catalogue/forgeries.js';
import { flakyFaults } from './fault-catalogue/flaky.js';

export { lateFaultTimings } from './fault-catalogue/late-fault-timings.js';

/**
 * The fault table. Names are public API (the conformance runner's tests use them with `--fault`): never rename.
 * `breaks` names the rule of the spec (or of this service's documented choices) that the fault violates.
 */
export const faultCatalogue = [
  ...signingFaults,
  ...payoutFaults,
  ...refundFaults,
  ...webhookFaults,
  ...responseFaults,
  ...methodFaults,
  ...explorerOnlyFaults,
  ...forgeryFaults,
  ...flakyFaults,
] as const satisfies readonly FaultEntry[];

/** The name of a fault the reference service can be started with (`--fault`). */
export type FaultName = (typeof faultCatalogue)[number]['name'];

/** The faults found by method (they carry `how`); each is proven through the audit check (or the explorer) that catches it. */
export type MethodFaultName = Extract<
  (typeof faultCatalogue)[number],
  { readonly how: string }
>['name'];

/** The faults only the explorer finds: every fixed check passes on them (`npm run faults` shows both columns). */
export type ExplorerFaultName = Extract<
  (typeof faultCatalogue)[number],
  { readonly how: 'explorer' }
>['name'];

/** The faults only the explorer finds (they show over a sequence of operations). */
export const explorerFaults: readonly ExplorerFaultName[] = faultCatalogue.flatMap((f) =>
  'how' in f && f.how === 'explorer' ? [f.name as ExplorerFaultName] : [],
);

/** A fault as `listFaults` describes it: its name, what it breaks and how the audit finds it. */
export interface FaultDescription {
  readonly name: FaultName;
  readonly description: string;
  readonly breaks: string;
}

const names: ReadonlySet<string> = new Set(faultCatalogue.map((f) => f.name));
if (names.size !== faultCatalogue.length) throw new Error('faultCatalogue: duplicate fault name');

/** True when `name` names a fault of the catalogue. */
export function isFaultName(name: string): name is FaultName {
  return names.has(name);
}

/** The `--list-faults` text: one fault per line, name then what it breaks. */
export function listFaults(): string {
  const width = Math.max(...faultCatalogue.map((f) => f.name.length));
  return faultCatalogue
    .map(
      (f) =>
        `${f.name.padEnd(width)}  ${f.description}\n${' '.repeat(width)}  breaks: ${f.breaks} (${f.requirements.join(', ')})\n`,
    )
    .join('');
}

/**
 * What `--variant alt` and `--variant lenient` change: at each point the spec leaves open, the choice `clean` makes,
 * the one `alt` makes, the one `lenient` makes, and the spec's words that leave it open. docs/reference-service.md lists this table; the server audit must pass both personalities.
 */
export const variantChoices = [
  {
    point: 'success status codes',
    clean: 'create payout and create refund answer 201',
    alt: 'both answer 200',
    lenient: 'as clean (201)',
    openBy:
      'Required-ness of each request field, amount bounds and the success status code: not shown.',
  },
  {
    point: 'authentication failure status',
    clean: '401 UNAUTHORIZED',
    alt: '403 FORBIDDEN',
    lenient: 'as clean (401)',
    openBy:
      'Status codes and bodies for [...] failed authentication or signature verification, and payout endpoint errors: not shown.',
  },
  {
    point: 'refund and commit/cancel conflicts',
    clean:
      '409 for a second active refund and for commit or cancel outside AWAITING_COMMIT; 422 above the payment total',
    alt: '422 for the conflicts; 400 above the payment total',
    lenient: 'as clean (409; 422 above the payment total)',
    openBy:
      'Status codes and bodies for exceeding the refund total, a second concurrent refund [...]: not shown.',
  },
  {
    point: 'error bodies outside the refund endpoint',
    clean: 'the refund error body everywhere',
    alt: 'RFC 9457 application/problem+json (type, title, status, detail, traceId) outside refund creation',
    lenient: 'as clean (the refund error body everywhere)',
    openBy: 'Refund creation failures return a JSON body [...] payout endpoint errors: not shown.',
  },
  {
    point: 'extra properties',
    clean: "only the fields of the spec's tables",
    alt: 'every resource, error body and webhook payload carries extra members (top level and nested)',
    lenient: "as clean (only the fields of the spec's tables)",
    openBy: 'Receivers must ignore unknown properties in payloads.',
  },
  {
    point: 'signature labels beside sig1',
    clean: 'a request with any label besides sig1 is rejected',
    alt: "only sig1 is processed; other labels are ignored (the spec fixes the signer's label; RFC 9421 §7.2.7 lets a verifier choose which signatures it processes)",
    lenient: 'other labels are ignored, as alt: only the sig1 member of each field is read',
    openBy: 'The label is always `sig1`.',
  },
  {
    point: 'created in the future',
    clean: "rejected beyond 300 s (payconform's profile choice)",
    alt: 'accepted: only the age is bounded',
    lenient: 'accepted, as alt: only the age is bounded',
    openBy: '3. Check now minus created is at most 300 seconds.',
  },
  {
    point: 'commit, cancel and refund signatures',
    clean: 'verified when present, not required',
    alt: 'required (answered 403 without one)',
    lenient: 'as clean: verified when present (on the lenient path), not required',
    openBy: 'Whether commit, cancel and refund calls require the signature: not shown',
  },
  {
    point: 'lifecycle speed',
    clean: 'each automatic payout step after the lifecycle delay',
    alt: 'payouts move on at once (5 ms); refunds as clean',
    lenient: 'as clean',
    openBy: 'Moves into and out of PROCESSED, FAILED, HELD, RETURNED [...]: not shown.',
  },
  {
    point: 'retry schedule',
    clean: 'exponential backoff from the initial delay',
    alt: 'a constant interval (the initial delay)',
    lenient: 'as clean (exponential backoff)',
    openBy: 'Retry interval and maximum number of attempts: not shown.',
  },
  {
    point: 'webhook body layout',
    clean: 'compact JSON',
    alt: 'pretty-printed JSON (2-space indent), signed over exactly the bytes sent',
    lenient: 'as clean (compact JSON)',
    openBy: 'the signature is base64 text computed over the exact JSON payload bytes',
  },
  {
    point: 'status descriptions',
    clean: 'a short text',
    alt: 'empty',
    lenient: 'as clean (a short text)',
    openBy: 'payoutStatusDescription | string | may be empty',
  },
  {
    point: 'media-type parameters',
    clean: 'no parameters',
    alt: '`; charset=utf-8` on every JSON response and webhook',
    lenient: 'as clean (no parameters)',
    openBy: 'Version negotiation rules [...]: not shown.',
  },
  {
    point: 'payment webhook Accept',
    clean: 'application/json',
    alt: '*/*',
    lenient: 'as clean (application/json)',
    openBy: 'Headers: `Authorization` (signature), `Content-Type: application/json`, `Accept`.',
  },
  {
    point: 'lengths and digit counts',
    clean:
      'tracingId 32 lowercase hex digits; createdAt with milliseconds; createdAtUtc with milliseconds; eventTimeUtc with milliseconds',
    alt: 'tracingId 16 upper-case hex digits; createdAt with microseconds; createdAtUtc with 7 fractional digits; eventTimeUtc without fractional seconds',
    lenient: 'as clean',
    openBy: 'hexadecimal trace identifier; differs per response [...] ISO 8601 UTC timestamp',
  },
  {
    point: 'public key layout',
    clean: 'the PEM body in 64-character lines',
    alt: 'the PEM body on one line',
    lenient: 'as clean (64-character lines)',
    openBy:
      "Returns the service's public key in PKCS#8 PEM form, with the [...] lines trimmed off.",
  },
  {
    point: 'Signature-Input as RFC 8941 reads it',
    clean:
      "payconform's strict parser: a parameter written twice, an Integer written as a Decimal or with leading zeros, an unknown parameter or another order are refused",
    alt: 'as clean',
    lenient:
      'the structured-headers library: a key written twice keeps its last value, a Decimal is read as its number, unknown parameters are ignored, any order; the base is rebuilt from what was parsed',
    openBy: '2. Parse Signature-Input for components, created, keyid, alg, nonce.',
  },
  {
    point: 'byte sequences as RFC 8941 reads them',
    clean:
      'the signature and digest in padded standard base64 only; no parameter on the signature; Content-Digest with one sha-512 member or others beside it',
    alt: 'as clean',
    lenient:
      'unpadded base64 accepted, parameters on the signature member ignored, Content-Digest members other than sha-512 ignored',
    openBy: '`Signature: sig1=:<BASE64_SIGNATURE>:` (RFC 8941 byte-sequence form)',
  },
] as const satisfies ReadonlyArray<{
  readonly point: string;
  readonly clean: string;
  readonly alt: string;
  /** Variant lenient's choice: another permitted one than alt's wherever the answer is the service's business. */
  readonly lenient: string;
  readonly openBy: string;
}>;

/**
 * The service's personality: `clean` takes one permitted choice wherever the spec is silent, `alt` the other (see
 * `variantChoices`); `lenient` verifies signed requests on its own path (server/lenient-verifier.ts: the
 * structured-headers library, accepting everything the spec permits) and takes its own column of `variantChoices`.
 * All three conform; the audit must pass each.
 */
export type ServiceVariant = 'clean' | 'alt' | 'lenient';

/**
 * The reference service's personalities (`--variant`): each takes other permitted choices where
 * the spec is silent.
 */
export const serviceVariants: readonly ServiceVariant[] = ['clean', 'alt', 'lenient'];

/**
 * The faults switched on (cheap membership test), and the personality: every behaviour switch of the service is read
 * at its point of use from this one object.
 */
export class FaultSet {
  private readonly set: ReadonlySet<FaultName>;
  constructor(
    faults: readonly FaultName[] = [],
    readonly variant: ServiceVariant = 'clean',
  ) {
    for (const f of faults)
      if (!isFaultName(f)) throw new TypeError(`unknown fault "${String(f)}"`);
    if (!serviceVariants.includes(variant))
      throw new TypeError(`unknown variant "${String(variant)}"`);
    this.set = new Set(faults);
  }
  /** The `alt` personality: the other permitted choice at every point where the spec is silent. */
  get alt(): boolean {
    return this.variant === 'alt';
  }
  has(name: FaultName): boolean {
    return this.set.has(name);
  }
  get size(): number {
    return this.set.size;
  }
  list(): FaultName[] {
    return [...this.set];
  }
}

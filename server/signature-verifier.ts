// Wires the signing core's verifyRequestAsync (the 12-step order, Ed25519 on the thread pool) for the service, and the
// weakened copies the faults need.
import type { Ed25519Backend, Ed25519PublicKey } from '../src/ed25519/backend.js';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import { MemoryNonceStore, type NonceOwner, type NonceStore } from '../src/profile/nonce-store.js';
import {
  createVerificationPolicy,
  type PolicyEnforcement,
  type VerificationPolicy,
} from '../src/profile/verification-policy.js';
import type { ApplicationRecord } from '../src/profile/verify-request.js';
import { verifyRequestAsync } from '../net/verify-pool/verify-request-async.js';
import { parseSignature, parseSignatureInput } from '../src/signatures/signature-fields.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import type { DigestAlgorithm } from '../src/digest/content-digest.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import type { SignatureOutcome, SignatureVerifier } from './authentication.js';
import type { FaultSet } from './faults.js';
import { createLenientVerifier } from './lenient-verifier.js';
import { nearMissResolver, prefixApplicationId, toleratedReadings } from './near-miss-faults.js';
import { edgeFaultRelaxation, rewriteForEdgeFaults } from './signature-edge-faults.js';
import type { Application, ServiceState } from './state.js';

/**
 * Fault nonce-race: the check and the record are two steps with a gap, so concurrent duplicates all pass. The gap is
 * wide (2.5 s) so that copies sent together still fall inside it when they reach the service spread out: on a loaded
 * machine the signature checks come back from the thread pool one by one, and behind test/adversity's proxy each
 * connection is held a random 0-2 s. With 250 ms, the two earliest copies through that proxy were sometimes more than
 * the gap apart, so only one was accepted and the audit rightly passed a service that had not raced.
 */
const RACE_GAP_MS = 2_500;

class RacyNonceStore implements NonceStore {
  constructor(private readonly inner: NonceStore) {}
  has(nonce: string, now: number): boolean | Promise<boolean> {
    return this.inner.has(nonce, now);
  }
  async checkAndRecord(
    nonce: string,
    now: number,
    expiresAt: number,
    owner?: NonceOwner,
  ): Promise<boolean> {
    const seen = await this.inner.has(nonce, now);
    await new Promise((resolve) => setTimeout(resolve, RACE_GAP_MS));
    if (seen) return false;
    await this.inner.checkAndRecord(nonce, now, expiresAt, owner);
    return true;
  }
}

/** Fault no-key-check: any keyid resolves to the application's first key. */
class AnyKeyMap extends Map<string, Ed25519PublicKey> {
  override get(key: string): Ed25519PublicKey | undefined {
    return super.get(key) ?? this.values().next().value;
  }
  override has(): boolean {
    return this.size > 0;
  }
}

/** Fault no-signature-check: an Ed25519 backend whose verify accepts any signature. */
const acceptingBackend: Ed25519Backend = Object.freeze({
  name: 'node' as const,
  sign: (message: Uint8Array, key: Parameters<Ed25519Backend['sign']>[1]) =>
    nodeBackend.sign(message, key),
  verify: () => true,
  verifyAsync: () => Promise.resolve(true),
});

/**
 * Fault accept-any-label: a request whose only signature has another label than sig1 is verified as if it were sig1
 * (the label is not part of the signature base, so the signature itself still has to verify).
 */
function relabelToSig1(request: HttpRequest): HttpRequest {
  const inputs = getFieldValues(request.headers, 'signature-input');
  const sigs = getFieldValues(request.headers, 'signature');
  if (inputs.length !== 1 || sigs.length !== 1) return request;
  const input = parseSignatureInput(inputs[0]!);
  const sig = parseSignature(sigs[0]!);
  if (!input.ok || !sig.ok || input.value.size !== 1 || sig.value.size !== 1) return request;
  const label = [...input.value.keys()][0]!;
  if (label === 'sig1' || !sig.value.has(label)) return request;
  const rename = (v: string) => v.replace(/^\s*[^=]+=/, 'sig1=');
  return {
    ...request,
    headers: request.headers.map(([n, v]) => {
      const lower = n.toLowerCase();
      return lower === 'signature-input' || lower === 'signature'
        ? ([n, rename(v)] as const)
        : ([n, v] as const);
    }),
  };
}

/** The sig1 member of Signature-Input (components by name, parameters), for the faults that relax one rule per request. */
function sig1Member(
  request: HttpRequest,
):
  | { readonly components: readonly string[]; readonly params: ReadonlyMap<string, unknown> }
  | undefined {
  const inputs = getFieldValues(request.headers, 'signature-input');
  if (inputs.length !== 1) return undefined;
  const parsed = parseSignatureInput(inputs[0]!);
  const member = parsed.ok ? parsed.value.get('sig1') : undefined;
  return member && { components: member.components.map((c) => c.name), params: member.params };
}

const PROFILE_COMPONENTS: readonly string[] = serviceProfile.componentNames;
const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Faults that take a generic library's RFC 9421 / RFC 9530 default, or a plausible misreading, for one request:
 * the enforcement switched off for this request only (undefined: the request is verified strictly).
 */
type Relaxation = { -readonly [K in keyof PolicyEnforcement]?: boolean } & {
  digestAlgorithm?: DigestAlgorithm;
  maxAgeSeconds?: number;
};

function relaxedFor(faults: FaultSet, request: HttpRequest): Relaxation | undefined {
  const member = sig1Member(request);
  const relax: Relaxation = {};
  if (member !== undefined) {
    const alg = member.params.get('alg');
    // Fault alg-case-insensitive: "ED25519" compared case-insensitively.
    if (
      faults.has('alg-case-insensitive') &&
      typeof alg === 'string' &&
      alg.toLowerCase() === serviceProfile.alg
    )
      relax.alg = false;
    // Fault components-superset: the eight in order, followed by more, accepted (a generic library checks a minimum set).
    if (
      faults.has('components-superset') &&
      member.components.length > PROFILE_COMPONENTS.length &&
      sameList(member.components.slice(0, PROFILE_COMPONENTS.length), PROFILE_COMPONENTS)
    )
      relax.components = false;
    // Fault components-as-set: the eight in any order accepted (compared as a set).
    if (
      faults.has('components-as-set') &&
      member.components.length === PROFILE_COMPONENTS.length &&
      PROFILE_COMPONENTS.every((c) => member.components.includes(c))
    )
      relax.components = false;
  }
  Object.assign(relax, edgeFaultRelaxation(faults, request, member?.params));
  // Fault digest-sha256-accepted: RFC 9530 lets the sender choose; a sha-256 Content-Digest is verified as such.
  if (
    faults.has('digest-sha256-accepted') &&
    /^\s*sha-256=/.test(getFieldValues(request.headers, 'content-digest').join(','))
  )
    relax.digestAlgorithm = 'sha-256';
  // Fault digest-optional: step 8 read as "when present" only: a request without Content-Digest is not digest-checked.
  if (
    faults.has('digest-optional') &&
    getFieldValues(request.headers, 'content-digest').length === 0
  )
    relax.digest = false;
  // Fault created-window-600: a 600 s window (double the spec's 300 s).
  if (faults.has('created-window-600')) relax.maxAgeSeconds = 600;
  return Object.keys(relax).length > 0 ? relax : undefined;
}

/** Fault path-without-query: @path rebuilt without the query (RFC 9421 §2.2.6's @path; the profile includes it). */
function withoutQuery(request: HttpRequest): HttpRequest {
  const url = new URL(request.url);
  if (url.search === '') return request;
  url.search = '';
  return { ...request, url: url.toString() };
}

/** Verification codes of steps after the nonce check (4): fault nonce-used-by-rejection records the nonce for them too. */
const AFTER_NONCE_STEP = (step: number | string): boolean => typeof step === 'number' && step > 4;

/** The service's verification policy, with the checks the faults (and variant alt) switch off for every request. */
function servicePolicy(faults: FaultSet): VerificationPolicy {
  const enforce: Partial<PolicyEnforcement> = {
    ...(faults.has('no-replay-check') ? { replay: false } : {}),
    ...(faults.has('no-created-window') ? { createdMaxAge: false } : {}),
    ...(faults.has('no-future-check') ? { createdMaxFuture: false } : {}),
    ...(faults.has('no-digest-check') ? { digest: false } : {}),
    ...(faults.has('no-secret-check') ? { applicationSecret: false } : {}),
    ...(faults.has('accept-any-alg') ? { alg: false } : {}),
    ...(faults.has('accept-any-label') ? { label: false } : {}),
    ...(faults.has('accept-any-components') ? { components: false } : {}),
    ...(faults.has('allow-missing-nonce') ? { nonce: false } : {}),
    // Variant alt: other labels beside a valid sig1 are ignored, and only the age of created is bounded.
    ...(faults.alt ? { label: false, createdMaxFuture: false } : {}),
  };
  return createVerificationPolicy({
    enforce,
    ...(faults.has('no-nonce-length-check') ? { nonceMaxLength: Number.MAX_SAFE_INTEGER } : {}),
    // Fault nonce-max-length-refused: the bound read as "less than".
    ...(faults.has('nonce-max-length-refused')
      ? { nonceMaxLength: serviceProfile.nonceMaxLength - 1 }
      : {}),
  });
}

/**
 * The application record of an application id: one per application, built on first use (not per request);
 * applications and their keys are fixed at start. Fault no-key-check: any keyid resolves to the first key.
 */
function createApplicationResolver(
  state: ServiceState,
  anyKey: boolean,
): (applicationId: string) => ApplicationRecord | undefined {
  const records = new WeakMap<Application, ApplicationRecord>();
  return (applicationId) => {
    const app = state.applications.get(applicationId);
    if (app === undefined) return undefined;
    let record = records.get(app);
    if (record === undefined) {
      record = {
        secret: app.applicationSecret,
        publicKeys: anyKey ? new AnyKeyMap(app.publicKeys) : app.publicKeys,
      };
      records.set(app, record);
    }
    return record;
  };
}

/** The request as the faults read it, and the policy it is verified under (relaxed for this request only). */
function readAsFaultsDo(
  faults: FaultSet,
  policy: VerificationPolicy,
  received: HttpRequest,
): { request: HttpRequest; policy: VerificationPolicy } {
  if (faults.size === 0) return { request: received, policy };
  let request = faults.has('accept-any-label') ? relabelToSig1(received) : received;
  if (faults.has('path-without-query')) request = withoutQuery(request);
  request = rewriteForEdgeFaults(faults, request);
  const relax = relaxedFor(faults, request);
  if (relax === undefined) return { request, policy };
  const { digestAlgorithm, maxAgeSeconds, ...relaxEnforce } = relax;
  return {
    request,
    policy: createVerificationPolicy({
      ...policy,
      ...(digestAlgorithm ? { digestAlgorithm } : {}),
      ...(maxAgeSeconds ? { maxAgeSeconds } : {}),
      enforce: { ...policy.enforce, ...relaxEnforce },
    }),
  };
}

/**
 * Fault no-application-id-check: a request whose application id is missing or unknown is taken as the first
 * application's; undefined when the fault is off or the failure is another one.
 */
function firstApplicationFallback(
  state: ServiceState,
  faults: FaultSet,
  code: string,
): SignatureOutcome | undefined {
  if (!faults.has('no-application-id-check')) return undefined;
  if (code !== 'APPLICATION_ID_MISSING' && code !== 'APPLICATION_ID_UNKNOWN') return undefined;
  const first = state.applications.values().next().value;
  if (first === undefined) return undefined;
  const keyId = first.publicKeys.keys().next().value ?? '';
  return { ok: true, applicationId: first.applicationId, keyId };
}

/** `shared`: the nonce store of a multi-instance deployment (Redis); default a per-process MemoryNonceStore. */
export function createSignatureVerifier(
  state: ServiceState,
  faults: FaultSet,
  now: () => number,
  shared?: NonceStore,
): SignatureVerifier {
  const store =
    shared ?? new MemoryNonceStore({ maxEntriesPerApplication: state.limits.noncesPerApplication });
  // Variant lenient: its own path, parsed by the structured-headers library, not the profile's rules.
  if (faults.variant === 'lenient') return createLenientVerifier(state, now, store);
  const nonceStore: NonceStore = faults.has('nonce-race') ? new RacyNonceStore(store) : store;
  const policy = servicePolicy(faults);
  const backend = faults.has('no-signature-check') ? acceptingBackend : nodeBackend;
  const resolveApplication = createApplicationResolver(state, faults.has('no-key-check'));

  return async (received): Promise<SignatureOutcome> => {
    const read = readAsFaultsDo(faults, policy, received);
    const at = Math.floor(now() / 1000);
    const options = {
      now: at,
      nonceStore,
      resolveApplication: nearMissResolver(faults, state, read.request, resolveApplication),
      backend,
      policy: read.policy,
    };
    let result = await verifyRequestAsync(read.request, options);
    // The base-*-tolerated faults: a signature that fails is verified again over a client mistake's base.
    const failedSignature = !result.ok && result.code === 'SIGNATURE_INVALID';
    for (const reading of failedSignature ? toleratedReadings(faults, read.request) : []) {
      const again = await verifyRequestAsync(reading, options);
      if (again.ok) {
        result = again;
        break;
      }
    }
    if (!result.ok && faults.has('nonce-used-by-rejection') && AFTER_NONCE_STEP(result.step)) {
      // Fault: the nonce is recorded when it is checked (step 4), so a request rejected later still uses it up.
      const nonce = sig1Member(read.request)?.params.get('nonce');
      if (typeof nonce === 'string')
        await store.checkAndRecord(nonce, at, at + serviceProfile.maxAgeSeconds);
    }
    if (result.ok) {
      const applicationId = prefixApplicationId(faults, state, result.applicationId);
      return { ok: true, applicationId, keyId: result.keyId };
    }
    return (
      firstApplicationFallback(state, faults, result.code) ?? {
        ok: false,
        code: result.code,
        step: result.step,
        message: result.message,
      }
    );
  };
}

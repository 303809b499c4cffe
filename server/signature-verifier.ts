// Wires the signing core's verifyRequestAsync (the 12-step order, Ed25519 on the thread pool) for the service, and the
// weakened copies the faults need.
import type { Ed25519Backend, Ed25519PublicKey } from '../src/ed25519/backend.js';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import { MemoryNonceStore, type NonceOwner, type NonceStore } from '../src/profile/nonce-store.js';
import { createVerificationPolicy, type PolicyEnforcement } from '../src/profile/verification-policy.js';
import { verifyRequestAsync, type ApplicationRecord } from '../src/profile/verify-request.js';
import { parseSignature, parseSignatureInput } from '../src/signatures/signature-fields.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import type { SignatureOutcome, SignatureVerifier } from './authentication.js';
import type { FaultSet } from './faults.js';
import type { Application, ServiceState } from './state.js';

/**
 * Fault nonce-race: the check and the record are two steps with a gap, so concurrent duplicates all pass. The gap is
 * wide (250 ms) so that a burst of copies still falls inside it on a loaded machine: with the signature checked on
 * the thread pool, the copies reach the store as their verifications come back, not all in the tick they arrived.
 */
const RACE_GAP_MS = 250;

class RacyNonceStore implements NonceStore {
  constructor(private readonly inner: NonceStore) {}
  has(nonce: string, now: number): boolean | Promise<boolean> {
    return this.inner.has(nonce, now);
  }
  async checkAndRecord(nonce: string, now: number, expiresAt: number, owner?: NonceOwner): Promise<boolean> {
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
  sign: (message: Uint8Array, key: Parameters<Ed25519Backend['sign']>[1]) => nodeBackend.sign(message, key),
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
      return lower === 'signature-input' || lower === 'signature' ? ([n, rename(v)] as const) : ([n, v] as const);
    }),
  };
}

/** `shared`: the nonce store of a multi-instance deployment (Redis); default a per-process MemoryNonceStore. */
export function createSignatureVerifier(state: ServiceState, faults: FaultSet, now: () => number, shared?: NonceStore): SignatureVerifier {
  const store = shared ?? new MemoryNonceStore();
  const nonceStore: NonceStore = faults.has('nonce-race') ? new RacyNonceStore(store) : store;
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
  const policy = createVerificationPolicy({
    enforce,
    ...(faults.has('no-nonce-length-check') ? { nonceMaxLength: Number.MAX_SAFE_INTEGER } : {}),
  });
  const backend = faults.has('no-signature-check') ? acceptingBackend : nodeBackend;
  const anyKey = faults.has('no-key-check');

  // One record per application, built on first use (not per request); applications and their keys are fixed at start.
  const records = new WeakMap<Application, ApplicationRecord>();
  const resolveApplication = (applicationId: string): ApplicationRecord | undefined => {
    const app = state.applications.get(applicationId);
    if (app === undefined) return undefined;
    let record = records.get(app);
    if (record === undefined) {
      record = { secret: app.applicationSecret, publicKeys: anyKey ? new AnyKeyMap(app.publicKeys) : app.publicKeys };
      records.set(app, record);
    }
    return record;
  };

  const anyLabel = faults.has('accept-any-label');

  return async (received): Promise<SignatureOutcome> => {
    const request = anyLabel ? relabelToSig1(received) : received;
    const result = await verifyRequestAsync(request, { now: Math.floor(now() / 1000), nonceStore, resolveApplication, backend, policy });
    if (result.ok) return { ok: true, applicationId: result.applicationId, keyId: result.keyId };
    if (faults.has('no-application-id-check') && (result.code === 'APPLICATION_ID_MISSING' || result.code === 'APPLICATION_ID_UNKNOWN')) {
      // Fault: the application is not checked; the request is taken as the first application's.
      const first = state.applications.values().next().value;
      if (first !== undefined) {
        const keyId = first.publicKeys.keys().next().value ?? '';
        return { ok: true, applicationId: first.applicationId, keyId };
      }
    }
    return { ok: false, code: result.code, step: result.step, message: result.message };
  };
}

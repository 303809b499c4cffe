// The near-miss faults (faults.ts, `how: 'near-miss'`): a verifier that accepts a credential one step from the
// configured one (the secret compared case-insensitively or by prefix, the application found by a prefix of its id,
// the key id case-folded or trimmed), or one that, when a signature fails over the base the profile builds, verifies
// it again over the base a known client mistake builds (@method in lower case, @authority without its port, an empty
// content-type or content-length line). Each is right for every correct request, so only a near miss shows it.
import type { Ed25519PublicKey } from '../src/ed25519/backend.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import type { ApplicationRecord } from '../src/profile/verify-result.js';
import type { FaultSet } from './faults.js';
import type { ServiceState } from './state.js';

type Resolve = (applicationId: string) => ApplicationRecord | undefined;

/** A key map that finds a key by a normalised key id when the exact one is not there. */
class NormalisedKeyMap extends Map<string, Ed25519PublicKey> {
  constructor(
    keys: ReadonlyMap<string, Ed25519PublicKey>,
    private readonly normalise: (keyId: string) => string,
  ) {
    super(keys);
  }
  override get(keyId: string): Ed25519PublicKey | undefined {
    const exact = super.get(keyId);
    if (exact !== undefined) return exact;
    const wanted = this.normalise(keyId);
    for (const [id, key] of this.entries()) if (this.normalise(id) === wanted) return key;
    return undefined;
  }
  override has(keyId: string): boolean {
    return this.get(keyId) !== undefined;
  }
}

/** Faults key-id-case-insensitive and key-id-trimmed: how the key id is read before it is looked up. */
function keyIdReading(faults: FaultSet): ((keyId: string) => string) | undefined {
  const fold = faults.has('key-id-case-insensitive');
  const trim = faults.has('key-id-trimmed');
  if (!fold && !trim) return undefined;
  return (keyId) => {
    const trimmed = trim ? keyId.trim() : keyId;
    return fold ? trimmed.toLowerCase() : trimmed;
  };
}

/** Faults secret-case-insensitive and secret-prefix-match: whether `received` passes for `secret`. */
function secretPasses(faults: FaultSet, received: string, secret: string): boolean {
  if (received === '') return false;
  if (faults.has('secret-case-insensitive') && received.toLowerCase() === secret.toLowerCase())
    return true;
  const shorter = Math.min(received.length, secret.length);
  return (
    faults.has('secret-prefix-match') && received.slice(0, shorter) === secret.slice(0, shorter)
  );
}

/** Fault application-id-prefix-match: the first configured application whose id starts with `applicationId`. */
export function prefixApplicationId(
  faults: FaultSet,
  state: ServiceState,
  applicationId: string,
): string {
  if (!faults.has('application-id-prefix-match') || applicationId === '') return applicationId;
  if (state.applications.has(applicationId)) return applicationId;
  for (const id of state.applications.keys()) if (id.startsWith(applicationId)) return id;
  return applicationId;
}

/**
 * The application resolver for one request as the near-miss credential faults read it: the application found by
 * a prefix of its id, its keys by a normalised key id, and the received secret taken for the configured one where
 * it passes the loose comparison. `resolve` itself when none of these faults is on.
 */
export function nearMissResolver(
  faults: FaultSet,
  state: ServiceState,
  request: HttpRequest,
  resolve: Resolve,
): Resolve {
  const readKeyId = keyIdReading(faults);
  const looseSecret = faults.has('secret-case-insensitive') || faults.has('secret-prefix-match');
  if (readKeyId === undefined && !looseSecret && !faults.has('application-id-prefix-match'))
    return resolve;
  const secrets = getFieldValues(request.headers, 'x-application-secret');
  const received = secrets.length === 1 ? secrets[0]!.trim() : '';
  return (applicationId) => {
    const record = resolve(prefixApplicationId(faults, state, applicationId));
    if (record === undefined) return undefined;
    return {
      secret:
        looseSecret && secretPasses(faults, received, record.secret) ? received : record.secret,
      publicKeys:
        readKeyId !== undefined
          ? new NormalisedKeyMap(record.publicKeys, readKeyId)
          : record.publicKeys,
    };
  };
}

/** The request with every line of `name` set to `value` (or removed, for undefined). */
function withHeader(request: HttpRequest, name: string, value: string | undefined): HttpRequest {
  const kept = request.headers.filter(([n]) => n.toLowerCase() !== name);
  return { ...request, headers: value === undefined ? kept : [...kept, [name, value]] };
}

/** The request as @authority without its port would read it (undefined when it has none). */
function withoutPort(request: HttpRequest): HttpRequest | undefined {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return undefined;
  }
  if (url.port === '') return undefined;
  const host = url.hostname;
  url.port = '';
  return withHeader({ ...request, url: url.toString() }, 'host', host);
}

/**
 * The other readings of a request whose signature failed, under which the base-tolerance faults verify it again:
 * each is the request the profile's base would be built from to equal the base the client mistake builds.
 */
export function toleratedReadings(faults: FaultSet, request: HttpRequest): HttpRequest[] {
  const readings: Array<HttpRequest | undefined> = [
    faults.has('base-method-lowercase-tolerated')
      ? { ...request, method: request.method.toLowerCase() }
      : undefined,
    faults.has('base-authority-without-port-tolerated') ? withoutPort(request) : undefined,
    faults.has('base-content-type-dropped-tolerated')
      ? withHeader(request, 'content-type', '')
      : undefined,
    faults.has('base-content-length-dropped-tolerated')
      ? withHeader(request, 'content-length', '')
      : undefined,
  ];
  return readings.filter((r): r is HttpRequest => r !== undefined);
}

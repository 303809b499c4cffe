// The application records whose keys the pool's workers hold, so that step 10 runs with the parse (one round trip),
// and the byte-for-byte test step 7 applies before it takes a worker's answer ahead.
import type { Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { poolCounters } from './pool-counters.js';
import type { RegisteredApplication } from './wire.js';

/** What the pool reads of an application record (ApplicationRecord): its keys by keyid. */
export interface ApplicationKeys {
  readonly publicKeys: ReadonlyMap<string, Ed25519PublicKey>;
}

/** What the event loop registered of one application: the record, and the bytes of each key the workers got. */
export interface Registration {
  readonly no: number;
  /** The record registered, or the last one found equal to it (same keyids, same bytes). */
  record: ApplicationKeys;
  readonly keys: ReadonlyMap<string, { readonly raw: Uint8Array }>;
}

/** Keys per record the workers are sent (a record with more is verified in two round trips). */
const MAX_REGISTERED_KEYS = 8;
/** Applications registered at once; past it every worker forgets them and registration starts again. */
const MAX_REGISTERED_APPLICATIONS = 4096;

/**
 * The application records whose keys the workers hold, so that step 10 runs with the parse (one round trip). Each
 * registration has a number never used again; step 7 accepts a result ahead only when the key it finds has the
 * registered bytes, so a record changed or replaced since costs a round trip, never a wrong answer.
 */
export class RecordRegistry {
  readonly #byApplication = new Map<string, Registration>();
  readonly #byNumber = new Map<number, Registration>();
  #next = 1;

  get(no: number): Registration | undefined {
    return this.#byNumber.get(no);
  }

  /**
   * Whether the workers hold `record`'s keys already: it is the record registered, or one with the same keyids and
   * bytes (a resolver that builds a record per call), which then stands for it and costs no message.
   */
  current(applicationId: string, record: ApplicationKeys): boolean {
    const registration = this.#byApplication.get(applicationId);
    if (registration === undefined) return false;
    if (registration.record === record) return true;
    if (!holdsSameKeys(registration, record)) return false;
    registration.record = record;
    return true;
  }

  /** The registration to send for `record`, or undefined when it cannot be registered. */
  add(applicationId: string, record: ApplicationKeys): RegisteredApplication | undefined {
    const keys = new Map<string, { raw: Uint8Array }>();
    try {
      if (record.publicKeys.size > MAX_REGISTERED_KEYS) return undefined;
      for (const [keyId, key] of record.publicKeys) {
        const raw = rawKeyOf(key);
        if (typeof keyId === 'string' && raw !== undefined)
          keys.set(keyId, { raw: Uint8Array.from(raw) });
      }
    } catch {
      return undefined; // a record that throws when read is not registered; step 7 reads it again
    }
    const registration: Registration = { no: this.#next++, record, keys };
    poolCounters.registrations++;
    this.#byApplication.set(applicationId, registration);
    this.#byNumber.set(registration.no, registration);
    return toWorker(applicationId, registration);
  }

  /** Whether every registration was just forgotten to make room (the workers must forget theirs too). */
  full(): boolean {
    if (this.#byApplication.size < MAX_REGISTERED_APPLICATIONS) return false;
    this.#byApplication.clear();
    this.#byNumber.clear();
    return true;
  }

  all(): RegisteredApplication[] {
    return [...this.#byApplication].map(([id, registration]) => toWorker(id, registration));
  }
}

/** A record's key as its 32 raw bytes, or undefined for anything else (records come from the caller's resolver). */
export function rawKeyOf(key: unknown): Uint8Array | undefined {
  const raw: unknown =
    typeof key === 'object' && key !== null ? (key as { readonly raw?: unknown }).raw : undefined;
  return raw instanceof Uint8Array && raw.length === 32 ? raw : undefined;
}

/**
 * Whether `record`'s keys of 32 raw bytes (those `add` registers) are exactly `registration`'s, each with the bytes
 * registered; a key `add` leaves out is left out here too, so such a record is still current. Never throws.
 */
function holdsSameKeys(registration: Registration, record: ApplicationKeys): boolean {
  try {
    let registrable = 0;
    for (const [keyId, key] of record.publicKeys) {
      const raw = rawKeyOf(key);
      if (typeof keyId !== 'string' || raw === undefined) continue;
      if (!registeredKeyIs(registration, keyId, raw)) return false;
      registrable++;
    }
    return registrable === registration.keys.size;
  } catch {
    return false;
  }
}

function toWorker(applicationId: string, registration: Registration): RegisteredApplication {
  const raw = new Uint8Array(registration.keys.size * 32);
  let i = 0;
  for (const { raw: bytes } of registration.keys.values()) raw.set(bytes, 32 * i++);
  return [registration.no, applicationId, [...registration.keys.keys()], raw];
}

/**
 * Whether the worker ran step 10 with the very bytes of the key step 7 found: registration `no`'s key for `keyId`,
 * compared byte for byte (whatever object holds them now).
 */
export function registeredKeyIs(
  registration: Registration | undefined,
  keyId: string,
  raw: Uint8Array,
): boolean {
  const sent = registration?.keys.get(keyId)?.raw;
  if (sent === undefined || raw.length !== 32) return false;
  for (let i = 0; i < 32; i++) if (sent[i] !== raw[i]) return false;
  return true;
}

// The messages between the event loop and a pool worker, both directions, written once: each record is a table of
// fields (name → kind), and one encoder and one decoder read the same table, so a field exists on both sides or on
// neither. Numbers travel in one transferred Float64Array (a plain array is cloned number by number), strings joined
// into one (a message of hundreds of strings costs about ten times more to send), bytes in one transferred buffer.
import { REQUEST_FACT_KINDS, type ValueOfKind } from '../../src/profile/request-facts.js';
import type { VerificationPolicy } from '../../src/profile/verification-policy.js';

/** How a field travels. */
export type WireKind = 'number' | 'boolean' | 'string' | 'string?' | 'lines' | 'bytes';

type WireValue<K> = K extends 'boolean'
  ? boolean
  : K extends 'lines'
    ? ReadonlyArray<readonly [string, string]>
    : K extends 'bytes'
      ? Uint8Array
      : ValueOfKind<K>;

export type WireSchema = Readonly<Record<string, WireKind>>;
export type WireRecord<S extends WireSchema> = { -readonly [P in keyof S]: WireValue<S[P]> };

/** Event loop → worker: steps 1 to 3, 8 and 9 of a request (and step 10 ahead when its application is registered). */
export const PARSE_JOB = {
  id: 'number',
  now: 'number',
  /** The id under which the worker was sent the policy. */
  policy: 'number',
  method: 'string',
  url: 'string',
  headers: 'lines',
  body: 'bytes',
} as const satisfies WireSchema;

/** Event loop → worker: step 10 for a request whose base the worker kept, with the 32 bytes of the key step 7 found. */
export const VERIFY_JOB = { id: 'number', key: 'bytes' } as const satisfies WireSchema;

/** Event loop → worker: forget the base kept for a request (a step from 4 to 7 failed). */
export const DROP_JOB = { id: 'number' } as const satisfies WireSchema;

/**
 * Worker → event loop, one per parse job: a failure of steps 1 to 4 (`ok` false: step, code, message), or the facts
 * steps 5 to 12 read (request-facts.ts), steps 8-9's failure (`lateStep` > 0, reported once steps 4 to 7 pass) and
 * step 10 when it ran with the parse (`aheadResult` 1 verified, 0 not, -1 not run; `aheadNo` the registration whose
 * key it used; `base` when it verified: the worker then keeps nothing).
 */
export const PARSED_ANSWER = {
  id: 'number',
  ok: 'boolean',
  step: 'number',
  code: 'string',
  message: 'string',
  ...REQUEST_FACT_KINDS,
  lateStep: 'number',
  lateCode: 'string',
  lateMessage: 'string',
  aheadNo: 'number',
  aheadResult: 'number',
  base: 'string',
} as const satisfies WireSchema;

/** Worker → event loop, one per verify job: whether the signature verified, and the base when it did. */
export const VERIFIED_ANSWER = {
  id: 'number',
  ok: 'boolean',
  base: 'string',
} as const satisfies WireSchema;

/** The records of each direction, in the order they travel. */
export const TO_WORKER = { parse: PARSE_JOB, verify: VERIFY_JOB, drop: DROP_JOB } as const;
export const TO_LOOP = { parsed: PARSED_ANSWER, verified: VERIFIED_ANSWER } as const;

type Direction = Readonly<Record<string, WireSchema>>;
export type WireRecords<D extends Direction> = { [P in keyof D]: Array<WireRecord<D[P]>> };

export type ParseJob = WireRecord<typeof PARSE_JOB>;
export type DropJob = WireRecord<typeof DROP_JOB>;
export type VerifyJob = WireRecord<typeof VERIFY_JOB>;
export type ParsedAnswer = WireRecord<typeof PARSED_ANSWER>;
export type VerifiedAnswer = WireRecord<typeof VERIFIED_ANSWER>;

/** One batch of records: how many of each (in the direction's order), their numbers, strings and bytes. */
export interface WireBatch {
  readonly counts: readonly number[];
  readonly numbers: Float64Array;
  readonly text: string;
  readonly bytes: Uint8Array;
}

/** The buffers to transfer with a batch (not copied, and no longer usable by the sender). */
export const transferOf = (batch: WireBatch): ArrayBuffer[] => [
  batch.numbers.buffer as ArrayBuffer,
  batch.bytes.buffer as ArrayBuffer,
];

/** A batch that does not read as the direction's records: the other side is defective (the pool replaces it). */
export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

/** A schema's fields in order, computed once per schema. */
const layouts = new WeakMap<WireSchema, { names: string[]; kinds: WireKind[] }>();
function layoutOf(schema: WireSchema): { names: string[]; kinds: WireKind[] } {
  let layout = layouts.get(schema);
  if (layout === undefined) {
    layout = { names: Object.keys(schema), kinds: Object.values(schema) };
    layouts.set(schema, layout);
  }
  return layout;
}

/** A record of `schema` with every field at its empty value (0, false, '', undefined, none, no bytes). */
export function emptyRecord<S extends WireSchema>(schema: S): WireRecord<S> {
  const record: Record<string, unknown> = {};
  const { names, kinds } = layoutOf(schema);
  names.forEach((name, f) => (record[name] = EMPTY[kinds[f]!]));
  return record as WireRecord<S>;
}
const EMPTY: Readonly<Record<WireKind, unknown>> = {
  number: 0,
  boolean: false,
  string: '',
  'string?': undefined,
  lines: [],
  bytes: new Uint8Array(0),
};

/** Encodes `records` (each section in the direction's order). */
export function encode<D extends Direction>(direction: D, records: WireRecords<D>): WireBatch {
  const numbers: number[] = [];
  const parts: string[] = [];
  const chunks: Uint8Array[] = [];
  const counts: number[] = [];
  let byteLength = 0;
  for (const section of Object.keys(direction)) {
    const { names, kinds } = layoutOf(direction[section]!);
    const list = records[section] as ReadonlyArray<Record<string, unknown>>;
    counts.push(list.length);
    for (const record of list) {
      for (let f = 0; f < names.length; f++) {
        const value = record[names[f]!];
        switch (kinds[f]) {
          case 'number':
            numbers.push(value as number);
            break;
          case 'boolean':
            numbers.push(value === true ? 1 : 0);
            break;
          case 'string?':
          case 'string':
            // An absent optional string travels as the length -1.
            if (value === undefined) numbers.push(-1);
            else {
              numbers.push((value as string).length);
              parts.push(value as string);
            }
            break;
          case 'lines': {
            const lines = value as ReadonlyArray<readonly [string, string]>;
            numbers.push(lines.length);
            for (const [name, text] of lines) {
              numbers.push(name.length, text.length);
              parts.push(name, text);
            }
            break;
          }
          case 'bytes':
            numbers.push((value as Uint8Array).length);
            chunks.push(value as Uint8Array);
            byteLength += (value as Uint8Array).length;
            break;
        }
      }
    }
  }
  const bytes = new Uint8Array(byteLength);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { counts, numbers: Float64Array.from(numbers), text: parts.join(''), bytes };
}

/** Where a decoder stands in a batch. */
class Cursor {
  n = 0;
  pos = 0;
  at = 0;
  constructor(readonly batch: WireBatch) {}

  number(): number {
    if (this.n >= this.batch.numbers.length) throw new WireFormatError('the batch ends early');
    return this.batch.numbers[this.n++]!;
  }

  length(): number {
    const length = this.number();
    if (!Number.isInteger(length) || length < 0) throw new WireFormatError(`bad length ${length}`);
    return length;
  }

  string(): string {
    const length = this.length();
    if (this.pos + length > this.batch.text.length)
      throw new WireFormatError('the text ends early');
    return this.batch.text.slice(this.pos, (this.pos += length));
  }

  bytes(): Uint8Array {
    const length = this.length();
    if (this.at + length > this.batch.bytes.length)
      throw new WireFormatError('the bytes end early');
    return this.batch.bytes.subarray(this.at, (this.at += length));
  }

  field(kind: WireKind | undefined): unknown {
    switch (kind) {
      case 'number':
        return this.number();
      case 'boolean':
        return this.number() === 1;
      case 'string':
        return this.string();
      case 'string?':
        if (this.batch.numbers[this.n] === -1) {
          this.n++;
          return undefined;
        }
        return this.string();
      case 'lines': {
        const count = this.length();
        const lines: Array<readonly [string, string]> = [];
        for (let i = 0; i < count; i++) lines.push([this.string(), this.string()]);
        return lines;
      }
      case 'bytes':
        return this.bytes();
      default:
        throw new WireFormatError(`unknown field kind ${String(kind)}`);
    }
  }
}

/**
 * Decodes a batch written by `encode` for the same direction. Throws WireFormatError unless it reads exactly every
 * number, character and byte of the batch (so a field written on one side only is caught, never misread).
 */
export function decode<D extends Direction>(direction: D, batch: WireBatch): WireRecords<D> {
  const sections = Object.keys(direction);
  if (!Array.isArray(batch?.counts) || batch.counts.length !== sections.length)
    throw new WireFormatError('the batch does not list its records');
  const cursor = new Cursor(batch);
  const out: Record<string, unknown[]> = {};
  sections.forEach((section, s) => {
    const { names, kinds } = layoutOf(direction[section]!);
    const list: unknown[] = [];
    for (let r = 0; r < batch.counts[s]!; r++) {
      const record: Record<string, unknown> = {};
      for (let f = 0; f < names.length; f++) record[names[f]!] = cursor.field(kinds[f]);
      list.push(record);
    }
    out[section] = list;
  });
  if (
    cursor.n !== batch.numbers.length ||
    cursor.pos !== batch.text.length ||
    cursor.at !== batch.bytes.length
  )
    throw new WireFormatError('the batch holds more than its records');
  return out as WireRecords<D>;
}

/** An application's keys as a worker receives them: [number, application id, keyids, their 32-byte keys in turn]. */
export type RegisteredApplication = readonly [number, string, readonly string[], Uint8Array];

/**
 * Event loop → worker: the policies and applications it has not been sent yet (with `forgetApplications`, after
 * forgetting the earlier ones; rare, so structured-cloned), and a batch of TO_WORKER records.
 */
export interface ToWorker {
  readonly policies: readonly (readonly [number, VerificationPolicy])[];
  readonly applications: readonly RegisteredApplication[];
  readonly forgetApplications: boolean;
  readonly batch: WireBatch;
}

/** The worker's first message, once its module is loaded; every later one is a batch of TO_LOOP records. */
export const WORKER_READY = 'ready';

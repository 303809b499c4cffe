// What steps 1 to 4 read from the request alone and steps 5 to 12 need (spec: Server verification order), written
// once as data: the verifier's steps read these names, and the worker pool's wire format carries exactly these fields
// between a worker and the event loop, so a fact one step adds is carried by adding it here.

/** How a fact is carried: a number, a string, or a string that may be absent (a header the request lacks). */
export type FactKind = 'number' | 'string' | 'string?';

/** The facts, in wire order. */
export const REQUEST_FACT_KINDS = {
  created: 'number',
  keyId: 'string',
  nonce: 'string',
  /** The first x-application-id field line's value (step 5). */
  applicationId: 'string?',
  /** The first x-application-secret field line's value (step 6). */
  secret: 'string?',
} as const satisfies Readonly<Record<string, FactKind>>;

/** The value a kind carries. */
export type ValueOfKind<K> = K extends 'number'
  ? number
  : K extends 'string'
    ? string
    : K extends 'string?'
      ? string | undefined
      : never;

/** What steps 1 to 4 established, as steps 5 to 12 read it. */
export type RequestFacts = {
  readonly [P in keyof typeof REQUEST_FACT_KINDS]: ValueOfKind<(typeof REQUEST_FACT_KINDS)[P]>;
};

const FACT_NAMES = Object.keys(REQUEST_FACT_KINDS) as Array<keyof RequestFacts>;

/** Copies every fact of `from` onto `to` (a record that carries them: a pool worker's answer). */
export function copyFacts(
  from: RequestFacts,
  to: { -readonly [P in keyof RequestFacts]: RequestFacts[P] },
): void {
  for (const name of FACT_NAMES) (to as Record<string, unknown>)[name] = from[name];
}

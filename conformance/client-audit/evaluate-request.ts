// Per-request rule evaluation of the client audit: each rule of the spec judged separately, by requirement id,
// on the request exactly as it arrived (raw field lines, exact body bytes). Pure apart from the session's memory.
// The rules themselves live in rules/, one file per concern, keyed by rule id in rules/index.ts.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '../../src/http/message.js';
import { matchEndpoint, type ClientEndpoint } from './endpoints.js';
import { clientRules } from './rules/index.js';
import { requestFacts } from './rules/request-facts.js';
import {
  CLIENT_RULE_IDS,
  type ClientCredentials,
  type ClientSessionOptions,
  type RuleOutcome,
  type RuleSession,
} from './rules/rule.js';

export {
  CLIENT_RULE_IDS,
  CLOCK_SKEW_TOLERANCE_SECONDS,
  type ClientCredentials,
  type ClientRuleId,
  type ClientSessionOptions,
  type RuleOutcome,
} from './rules/rule.js';

/** One request the audited client sent, as received, with every profile finding about it. */
export interface ExaminedRequest {
  /** 1-based, in arrival order. */
  readonly index: number;
  /** Milliseconds since the epoch when the request was complete. */
  readonly receivedAt: number;
  readonly endpoint?: ClientEndpoint;
  readonly request: HttpRequest;
  readonly outcomes: readonly RuleOutcome[];
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The session: credentials, nonces seen so far, and the diagnosis budget. One per audit run. */
export class ClientSession {
  readonly #nonces = new Map<string, number>();
  readonly #secretDigest: Buffer;
  /** What the rules may ask of the session (rules/rule.ts). */
  readonly #forRules: RuleSession;
  #diagnoses = 0;
  #count = 0;

  constructor(
    readonly credentials: ClientCredentials,
    private readonly options: ClientSessionOptions = {},
  ) {
    this.#secretDigest = sha256(credentials.applicationSecret);
    this.#forRules = {
      credentials,
      options,
      secretMatches: (value) => timingSafeEqual(sha256(value), this.#secretDigest),
      recordNonce: (nonce, index) => {
        const first = this.#nonces.get(nonce);
        if (first === undefined) this.#nonces.set(nonce, index);
        return first;
      },
      nextDiagnosisIsFull: () => {
        this.#diagnoses += 1;
        return this.#diagnoses <= (this.options.fullDiagnoses ?? 25);
      },
    };
  }

  /** Examines one request as it arrived (`receivedAt` in ms). Never throws for hostile input. */
  examine(request: HttpRequest, receivedAt: number): ExaminedRequest {
    this.#count += 1;
    const index = this.#count;
    let outcomes: RuleOutcome[];
    let endpoint: ClientEndpoint | undefined;
    try {
      const match = matchEndpoint(request.method, targetOf(request.url));
      endpoint = match.wrongMethod ? undefined : match.endpoint;
      // Every rule, in report order, on the facts computed once (the signature checked last: step 10).
      const facts = requestFacts(request, receivedAt, index, match);
      outcomes = CLIENT_RULE_IDS.flatMap((id) => clientRules[id](facts, this.#forRules));
    } catch (error) {
      // A defect of a rule must not hide the others' verdicts: record it on the endpoint rule.
      outcomes = [
        {
          rule: 'client-endpoint',
          outcome: 'violation',
          message: `the audit could not examine this request: ${error instanceof Error ? error.message : String(error)}`,
        },
      ];
    }
    return {
      index,
      receivedAt,
      ...(endpoint !== undefined ? { endpoint } : {}),
      request,
      outcomes,
    };
  }
}

/** The origin-form target of an absolute URL string as written. */
function targetOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(url);
  const rest = m ? m[1]! : url;
  return rest === '' ? '/' : rest;
}

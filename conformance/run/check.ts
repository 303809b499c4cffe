// The check model: what a conformance check declares about itself and what it returns (findings, not verdicts).
import type { FieldLines } from '../../src/http/message.js';

/** A requirement's strength as the spec words it (RFC 2119). */
export type Level = 'MUST' | 'SHOULD' | 'MAY';
/**
 * Whom a check judges: a server (the service), a client (a signer) or a receiver (a webhook
 * endpoint).
 */
export type CheckRole = 'server' | 'client' | 'receiver';

/** The request exactly as it went on the wire (headers in order, duplicates kept, exact body bytes). */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: FieldLines;
  readonly body: Uint8Array;
  /** The body's whole length, when `body` keeps only its first bytes (a record that bounds what it keeps). */
  readonly bodySize?: number;
}

/** The response as received; `body` may be cut at the client's size limit (`truncated`). */
export interface RecordedResponse {
  readonly status: number;
  readonly statusText?: string;
  readonly headers: FieldLines;
  readonly body: Uint8Array;
  /** The body decoded as UTF-8, when it is valid UTF-8. */
  readonly bodyText?: string;
  /** The body parsed as JSON, when it parses. */
  readonly json?: unknown;
  readonly truncated?: boolean;
  /** The body's whole length as read, when `body` keeps only its first bytes. */
  readonly bodySize?: number;
}

/**
 * What a finding shows: the exchange exactly as sent and received, and expected against received
 * where they differ.
 */
export interface Evidence {
  readonly request?: RecordedRequest;
  readonly response?: RecordedResponse;
  /** A shell command that reproduces the exchange (see `curlFor`); secrets as environment references. */
  readonly reproduce?: string;
  readonly notes?: string;
}

/**
 * What a check observed. A check reports `violation`; the engine grades it by level (MUST → fail,
 * SHOULD/MAY → warn) and never fails a target for a requirement the spec leaves "not shown".
 * `observation` records what was seen where the spec is silent: it is graded `pass` and never fails.
 * `inconclusive`: the check needed an answer and got none (timeout, reset); graded `error`, never a pass.
 */
export type FindingOutcome = 'pass' | 'violation' | 'observation' | 'skip' | 'n/a' | 'inconclusive';

/**
 * One observation of a check: its outcome, a message, and the evidence and requirement ids behind
 * it.
 */
export interface Finding {
  readonly outcome: FindingOutcome;
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  readonly evidence?: Evidence;
  /** The requirement this finding is about (must be one of the check's `requirements`). */
  readonly requirement?: string;
  /** Overrides the check's level for this finding (e.g. a SHOULD-level sub-rule inside a MUST check). */
  readonly level?: Level;
}

/** Given to `run`: aborted when the check's time is up or the run is cancelled. */
export interface CheckRunEnv {
  readonly signal: AbortSignal;
  /** Milliseconds since the epoch at which the engine gives up on this check. */
  readonly deadline: number;
}

/**
 * A conformance check: a stable id, a title, the requirement ids it covers, its level and role,
 * and one `run` that returns findings without throwing for an ordinary violation.
 */
export interface Check<Ctx> {
  /** Stable kebab-case id (public API: never renamed casually). */
  readonly id: string;
  readonly title: string;
  /** Grouping for reports, e.g. "signing", "cop", "refunds", "webhooks". */
  readonly area: string;
  /** Requirement ids from `conformance/requirements.json`; validated at start-up. */
  readonly requirements: readonly string[];
  readonly level: Level;
  readonly appliesTo: CheckRole;
  /** Config fields the check needs (see `availableFields`); a missing one skips the check with that reason. */
  readonly needs?: readonly string[];
  /** Sends requests that move money (payouts, refunds): refused against a non-loopback target without `--allow-live`. */
  readonly mutating?: boolean;
  /** Runs alone: waits for running checks to finish, and nothing else starts until it ends. */
  readonly serial?: boolean;
  /** Checks sharing a group never run at the same time as each other. */
  readonly group?: string;
  /** Overrides the engine's per-check timeout. */
  readonly timeoutMs?: number;
  /**
   * Why the check does not apply to this target, decided before it runs (e.g. the config states the target lacks
   * payconform's /sandbox/, which the spec does not define): the result is `n/a` with that reason, which never makes
   * the run INCOMPLETE. Undefined: it applies.
   */
  notApplicableTo?(ctx: Ctx): string | undefined;
  run(ctx: Ctx, env: CheckRunEnv): Promise<readonly Finding[]>;
  /**
   * How a failure is run once more, alone, before it is reported (a failure that does not happen again is flaky:
   * conformance/run/flaky.ts). Absent: `run` again, unless `neverRerun` or the suite says never. A drawn check runs the
   * same draw again (its seed, its shrunk sequence).
   */
  rerunFailure?(ctx: Ctx, env: CheckRunEnv): Promise<readonly Finding[]>;
  /** Why a second run of this check would say nothing (its failure is reported as it came, never run again). */
  readonly neverRerun?: string;
}

/** Helpers so check code reads as the model: `return [violation('...', { expected, received })]`. */
type FindingExtras = Omit<Finding, 'outcome' | 'message'>;
/** A finding that the target did what the requirement asks. */
export const pass = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'pass',
  message,
  ...extras,
});
/**
 * A finding that the target broke the requirement: a failure at MUST level, a warning at SHOULD.
 */
export const violation = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'violation',
  message,
  ...extras,
});
/**
 * A finding that records behaviour the spec leaves open (either answer conforms): never a failure
 * or a warning.
 */
export const observation = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'observation',
  message,
  ...extras,
});
/** A finding that the check could not run (a missing prerequisite), with the reason. */
export const skip = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'skip',
  message,
  ...extras,
});
/**
 * A finding that the check does not apply to this target (for instance, a feature the
 * configuration leaves out).
 */
export const notApplicable = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'n/a',
  message,
  ...extras,
});
export const inconclusive = (message: string, extras: FindingExtras = {}): Finding => ({
  outcome: 'inconclusive',
  message,
  ...extras,
});

/** Check ids: lowercase words joined by single hyphens. */
export const CHECK_ID_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

// A request that got no complete answer is not evidence against the target (a slow, busy or queued server is not a
// broken one): helpers that tell such an exchange apart, and the rule every audit's findings pass through.
import type { Finding } from '../run/check.js';
import { inconclusive } from '../run/check.js';
import type { ExchangeErrorCode, RecordedExchange } from '../http/http-client.js';

/**
 * Transport outcomes that say nothing of what the target decided: it may have accepted, rejected or never seen the
 * request. A malformed or oversized answer (PROTOCOL_ERROR, RESPONSE_TOO_LARGE) is the target's own answer.
 */
export const NO_ANSWER_CODES: readonly ExchangeErrorCode[] = [
  'TIMEOUT',
  'CONNECTION_RESET',
  'CONNECTION_REFUSED',
  'NETWORK_ERROR',
  'ABORTED',
];

/** True when the exchange ended without a complete answer (no status line, or a body cut by a timeout or reset). */
export function unanswered(ex: RecordedExchange): boolean {
  return ex.error !== undefined && NO_ANSWER_CODES.includes(ex.error.code);
}

const NO_ANSWER_NOTE = new RegExp(`(?:^|; )(${NO_ANSWER_CODES.join('|')}): `);

/** The transport code in a finding's evidence notes (as `evidenceOf` writes them), when it shows no complete answer. */
function noAnswerIn(finding: Finding): string | undefined {
  const e = finding.evidence;
  if (e?.request === undefined) return undefined;
  if (e.response !== undefined && e.response.truncated !== true) return undefined;
  return NO_ANSWER_NOTE.exec(e.notes ?? '')?.[1];
}

/**
 * The rule of every audit (docs/verdicts.md, "No answer is not a failure"): a violation whose evidence is an exchange
 * without a complete answer becomes inconclusive (graded error, never fail), with the reason. Checks decide from
 * other evidence where they have it (payouts or webhooks for a reference, a later answer); this is the last guard.
 */
export function noAnswerIsNotEvidence(findings: readonly Finding[]): Finding[] {
  return findings.map((f) => {
    if (f.outcome !== 'violation') return f;
    const code = noAnswerIn(f);
    if (code === undefined) return f;
    return inconclusive(
      `${f.message} (undecided: the request got no complete answer (${code}), which is not evidence of what the target did)`,
      {
        ...(f.requirement !== undefined ? { requirement: f.requirement } : {}),
        ...(f.expected !== undefined ? { expected: f.expected } : {}),
        ...(f.received !== undefined ? { received: f.received } : {}),
        ...(f.evidence !== undefined ? { evidence: f.evidence } : {}),
      },
    );
  });
}

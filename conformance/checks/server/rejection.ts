// Judging a request that must be rejected: any 4xx passes (which one is "not shown": it is recorded, never failed),
// a 2xx is the violation of the rule the request broke, anything else breaks the status-class rule.
import type { Finding } from '../../run/check.js';
import { inconclusive, observation, pass, violation } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import type { ServerAuditContext } from './context.js';
import { describeOutcome, evidenceOf } from './requests.js';

/**
 * Requirements every rejection check reports on besides its own rule. A payout created by a rejected request fails
 * SIG-PAYOUT-CREATE-SIGNED ("All such requests must prove authenticity, integrity and freshness."): the request
 * that created it did not prove them.
 */
export const REJECTION_REQUIREMENTS = [
  'SIG-PAYOUT-CREATE-SIGNED',
  'SIG-PROFILE-REJECTED-NO-EFFECT',
  'ERROR-AUTH-FAILURE',
  'ERROR-STATUS-CLASSES',
] as const;

/** The body's `statusName` or the first 80 characters of the body, for the record. */
function bodyHint(ex: RecordedExchange): string {
  const j = ex.response?.json as Record<string, unknown> | undefined;
  if (typeof j === 'object' && j !== null && typeof j['statusName'] === 'string')
    return ` ${j['statusName']}`;
  const text = ex.response?.bodyText?.trim() ?? '';
  return text === '' ? '' : ` "${text.slice(0, 80)}${text.length > 80 ? '…' : ''}"`;
}

/**
 * Findings for one request that breaks `requirement` and must be rejected. `statusRequirement` is the "not shown"
 * requirement under which the status code seen is recorded.
 */
export function judgeRejection(
  ctx: ServerAuditContext,
  ex: RecordedExchange,
  requirement: string,
  what: string,
  statusRequirement = 'ERROR-AUTH-FAILURE',
): Finding[] {
  const evidence = evidenceOf(ctx, ex);
  const status = ex.response?.status;
  if (status === undefined) {
    // No answer is neither a rejection nor an acceptance (docs/verdicts.md, "No answer is not a failure").
    return [
      inconclusive(`${what}: no HTTP response, so whether it was rejected is unknown`, {
        requirement,
        expected: 'a 4xx rejection',
        received: describeOutcome(ex),
        evidence,
      }),
    ];
  }
  if (status >= 200 && status < 300) {
    return [
      violation(`${what} was accepted`, {
        requirement,
        expected: 'a 4xx rejection',
        received: describeOutcome(ex),
        evidence,
      }),
    ];
  }
  if (status < 400 || status >= 500) {
    return [
      violation(`${what} was answered ${status}, not with a client error`, {
        requirement: 'ERROR-STATUS-CLASSES',
        expected: 'a 4xx status (client errors use 4xx)',
        received: describeOutcome(ex),
        evidence,
      }),
    ];
  }
  return [
    pass(`${what} was rejected with ${status}`, { requirement, evidence }),
    observation(
      `${what}: rejected with ${status}${bodyHint(ex)} (which 4xx is not shown by the spec)`,
      { requirement: statusRequirement },
    ),
  ];
}

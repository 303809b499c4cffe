// Judging the resources a target returns: a 2xx whose body is a Payout or Refund resource valid against its schema
// (the permissive schema that judges other implementations; the strict one is only for the reference service).
import { validatePayload, type PayloadKind } from '../../../src/schemas/index.js';
import type { Finding } from '../../run/check.js';
import { violation } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import type { ServerAuditContext } from './context.js';
import { describeOutcome, evidenceOf, isSuccess, jsonObject } from './requests.js';

/** `"/createdAt: must match pattern ..."` lines for the first few violations. */
export function schemaProblems(kind: PayloadKind, value: unknown): string[] {
  const result = validatePayload(kind, value);
  if (result.valid) return [];
  return result.errors.slice(0, 6).map((e) => `${e.pointer || '(root)'}: ${e.message}`);
}

export interface ResourceVerdict {
  readonly findings: Finding[];
  /** The parsed body when the response is a 2xx JSON object (schema-valid or not). */
  readonly resource?: Record<string, unknown>;
}

/**
 * A call that must succeed with a resource: not a 2xx → violation of `acceptRequirement`; not a JSON object or not
 * schema-valid → violation of `schemaRequirement`. Returns no finding when all is well (callers add their pass).
 */
export function judgeResource(
  ctx: ServerAuditContext,
  ex: RecordedExchange,
  what: string,
  kind: PayloadKind,
  acceptRequirement: string,
  schemaRequirement: string,
): ResourceVerdict {
  const evidence = evidenceOf(ctx, ex);
  if (!isSuccess(ex)) {
    return {
      findings: [
        violation(`${what} was not accepted`, {
          requirement: acceptRequirement,
          expected: 'a 2xx response',
          received: describeOutcome(ex),
          evidence,
        }),
      ],
    };
  }
  const resource = jsonObject(ex);
  if (resource === undefined) {
    return {
      findings: [
        violation(`${what}: the response body is not a JSON object`, {
          requirement: schemaRequirement,
          expected: `a ${kind} resource (JSON object)`,
          received: ex.response?.bodyText?.slice(0, 120) ?? '(no body)',
          evidence,
        }),
      ],
    };
  }
  const problems = schemaProblems(kind, resource);
  if (problems.length > 0) {
    return {
      resource,
      findings: [
        violation(`${what}: the response does not match the ${kind} schema`, {
          requirement: schemaRequirement,
          expected: `schemas/${kind}.schema.json`,
          received: problems.join('; '),
          evidence,
        }),
      ],
    };
  }
  return { findings: [], resource };
}

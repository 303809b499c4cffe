// The client audit's body rule (spec: each endpoint's request body and its schema): no body where the spec says
// "No body", else JSON in UTF-8 valid against the endpoint's schema; payconform's strict reading only recorded.
import { validatePayload } from '../../../src/schemas/validate-payload.js';
import type { EndpointSpec } from '../endpoints.js';
import { notApplicable, outcome, type ClientRule, type RuleOutcome } from './rule.js';

const rule = 'client-request-body';

export const requestBodyRule: ClientRule = ({ spec, request }, { credentials }) => {
  if (spec === undefined) return notApplicable(rule, 'not a spec endpoint');
  if (spec.body === 'none' || spec.body === 'bodyless') {
    if (request.body.length === 0)
      return [outcome(rule, 'pass', spec.requirement, 'no body, as the spec shows')];
    return [
      outcome(
        rule,
        'violation',
        spec.requirement,
        `the ${spec.title} request has no body; ${request.body.length} bytes were sent`,
        { expected: 'no body', received: `${request.body.length} bytes` },
      ),
    ];
  }
  const parsed = parseJsonBody(request.body, spec.body.requirement);
  if ('problem' in parsed) return [parsed.problem];
  return judgeBody(spec.body, parsed.value, credentials.applicationId);
};

function parseJsonBody(
  body: Uint8Array,
  requirement: string,
): { readonly value: unknown } | { readonly problem: RuleOutcome } {
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) };
  } catch (error) {
    return {
      problem: outcome(
        rule,
        'violation',
        requirement,
        `the body is not JSON in UTF-8: ${error instanceof Error ? error.message : String(error)}`,
        { expected: 'a JSON object', received: `${body.length} bytes` },
      ),
    };
  }
}

/** The parsed body against its schema, the application id it names, then the strict reading (recorded only). */
function judgeBody(
  { kind, requirement, detailsRequirement }: Exclude<EndpointSpec['body'], string>,
  value: unknown,
  applicationId: string,
): RuleOutcome[] {
  const permissive = validatePayload(kind, value);
  if (!permissive.valid)
    return permissive.errors.slice(0, 10).map((e) =>
      outcome(rule, 'violation', requirement, `${e.pointer || '/'}: ${e.message}`, {
        expected: `valid against ${kind}.schema.json`,
      }),
    );
  const named = (value as { applicationId?: unknown }).applicationId;
  if (kind === 'payout-create-request' && typeof named === 'string' && named !== applicationId)
    return [
      outcome(
        rule,
        'violation',
        requirement,
        `applicationId "${named}" in the body is not the configured application`,
        { expected: applicationId, received: named },
      ),
    ];
  const strict = validatePayload(kind, value, { strict: true });
  // Where the spec is silent (required fields, amount as a string, unknown members): recorded, never failed.
  const details = strict.valid
    ? []
    : strict.errors
        .slice(0, 5)
        .map((e) =>
          outcome(
            rule,
            'observation',
            detailsRequirement,
            `${e.pointer || '/'}: ${e.message} (payconform's strict reading; the spec does not show it)`,
          ),
        );
  return [outcome(rule, 'pass', requirement, `body valid against ${kind}.schema.json`), ...details];
}

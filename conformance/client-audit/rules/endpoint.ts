// The client audit's endpoint rule (spec: the endpoints and their paths): the call is one of the spec's endpoints
// with its own method and path, and the refund path carries the configured application and merchant ids.
import { endpointSpecs, nearEndpoint } from '../endpoints.js';
import {
  outcome,
  type ClientRule,
  type RequestFacts,
  type RuleOutcome,
  type RuleSession,
} from './rule.js';

const rule = 'client-endpoint';

export const endpointRule: ClientRule = (facts, session) => {
  const { match, spec, request } = facts;
  if (match.endpoint !== undefined && match.wrongMethod) {
    const s = endpointSpecs[match.endpoint];
    return [
      outcome(
        rule,
        'violation',
        s.requirement,
        `${request.method} ${match.path}: the ${s.title} endpoint takes ${s.method}`,
        { expected: `${s.method} ${s.path}`, received: `${request.method} ${match.path}` },
      ),
    ];
  }
  if (spec === undefined) return [notAnEndpoint(facts)];
  if (match.endpoint === 'create-refund') {
    const problem = refundPathProblem(facts, session);
    if (problem !== undefined) return [problem];
  }
  return [
    outcome(rule, 'pass', spec.requirement, `${request.method} ${match.path} (${spec.title})`),
  ];
};

/** A call to none of the spec's endpoints: the spec's own path written differently, or another path. */
function notAnEndpoint({ match, request }: RequestFacts): RuleOutcome {
  const near = nearEndpoint(match.path);
  const s = near !== undefined ? endpointSpecs[near.endpoint] : undefined;
  if (near !== undefined && s !== undefined && s.method === request.method)
    // Not another endpoint but the spec's own path written differently: the spec names the path (and the service 404s).
    return outcome(
      rule,
      'violation',
      s.requirement,
      `${request.method} ${match.path} is the ${s.title} path with ${near.how}; the spec's path is ${s.path}`,
      { expected: `${s.method} ${s.path}`, received: `${request.method} ${match.path}` },
    );
  return outcome(
    rule,
    'observation',
    'RETRIEVAL-ENDPOINTS',
    `${request.method} ${match.path} is none of the spec's endpoints (the service answers 404 or 405)`,
  );
}

/** The refund path's application id (and merchant id, when configured) against the credentials. */
function refundPathProblem(
  { match }: RequestFacts,
  { credentials }: RuleSession,
): RuleOutcome | undefined {
  const problems: string[] = [];
  if (match.params['applicationId'] !== credentials.applicationId)
    problems.push(
      `applicationId "${match.params['applicationId'] ?? ''}" in the path is not the configured application id`,
    );
  if (credentials.merchantId !== undefined && match.params['merchantId'] !== credentials.merchantId)
    problems.push(
      `merchantId "${match.params['merchantId'] ?? ''}" in the path is not the configured merchant id`,
    );
  if (problems.length === 0) return undefined;
  return outcome(rule, 'violation', 'REFUND-CREATE-REQUEST', problems.join('; '), {
    expected: `/api/merchants/${credentials.merchantId ?? '<merchantId>'}/applications/${credentials.applicationId}/refunds`,
    received: match.path,
  });
}

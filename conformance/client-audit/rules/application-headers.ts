// The client audit's application-header rule (spec: Authentication, steps 5 and 6): x-application-id and
// x-application-secret sent once each and as configured; the secret compared in constant time and never shown.
import { findingsFor } from './finding-routes.js';
import { notApplicable, outcome, type ClientRule, type RuleSession } from './rule.js';

const rule = 'client-application-headers';

interface Problem {
  readonly requirement: string;
  readonly message: string;
}

export const applicationHeadersRule: ClientRule = (facts, session) => {
  const { spec, values } = facts;
  if (spec !== undefined && !spec.applicationHeaders)
    return notApplicable(rule, `${spec.title} is called without application headers`);
  // A header on several lines: the profile's rules (step 1) find it.
  const problems: Problem[] = [
    ...findingsFor(facts, rule),
    ...idProblems(values('x-application-id'), session.credentials.applicationId),
    ...secretProblems(values('x-application-secret'), session),
  ];
  const verdicts =
    problems.length === 0
      ? [
          outcome(
            rule,
            'pass',
            'APP-ID-REQUIRED',
            'x-application-id and x-application-secret present and as configured',
          ),
        ]
      : problems.map((p) => outcome(rule, 'violation', p.requirement, p.message));
  const appName = values('x-app-name');
  if (appName.length === 0) return verdicts;
  return [
    ...verdicts,
    outcome(
      rule,
      'observation',
      'REFUND-X-APP-NAME',
      `x-app-name "${appName.join(', ')}" sent (the spec shows it in one refund example; its effect is not shown)`,
    ),
  ];
};

function idProblems(ids: string[], applicationId: string): Problem[] {
  if (ids.length === 0)
    return [{ requirement: 'APP-ID-REQUIRED', message: 'missing "x-application-id"' }];
  if (ids.length > 1) return [];
  if (ids[0]!.trim() !== applicationId)
    return [
      {
        requirement: 'SIG-BASE-APPLICATION-HEADERS',
        message: `"x-application-id" is "${ids[0]!}", not the configured application id "${applicationId}"`,
      },
    ];
  return [];
}

function secretProblems(secrets: string[], session: RuleSession): Problem[] {
  if (secrets.length === 0)
    return [{ requirement: 'APP-SECRET-SENT', message: 'missing "x-application-secret"' }];
  if (secrets.length > 1) return [];
  if (!session.secretMatches(secrets[0]!.trim()))
    return [
      {
        requirement: 'APP-SECRET-SENT',
        message:
          '"x-application-secret" is not the configured application secret (value not shown)',
      },
    ];
  return [];
}

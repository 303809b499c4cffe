// The client audit's application-header rule (spec: Authentication, steps 5 and 6): x-application-id and
// x-application-secret sent once each and as configured; the secret compared in constant time and never shown.
import { notApplicable, outcome, type ClientRule, type RuleSession } from './rule.js';

const rule = 'client-application-headers';

interface Problem {
  readonly requirement: string;
  readonly message: string;
}

export const applicationHeadersRule: ClientRule = ({ spec, values }, session) => {
  if (spec !== undefined && !spec.applicationHeaders)
    return notApplicable(rule, `${spec.title} is called without application headers`);
  const problems = [
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

/** A header the spec wants once: missing, or sent on several lines. */
function oneLineProblem(lines: string[], name: string, requirement: string): Problem | undefined {
  if (lines.length === 0) return { requirement, message: `missing "${name}"` };
  if (lines.length > 1) return { requirement, message: `"${name}" sent on ${lines.length} lines` };
  return undefined;
}

function idProblems(ids: string[], applicationId: string): Problem[] {
  const once = oneLineProblem(ids, 'x-application-id', 'APP-ID-REQUIRED');
  if (once !== undefined) return [once];
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
  const once = oneLineProblem(secrets, 'x-application-secret', 'APP-SECRET-SENT');
  if (once !== undefined) return [once];
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

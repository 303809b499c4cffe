// A check built from a table of forged create-payout requests, each naming the requirement whose text makes
// accepting it wrong: every forgery is sent (concurrently) and must be refused (judgeRejection), then one quiet wait
// shows that none created a payout. A forgery that may arrive as the very same request as a correct one (either
// answer conforms) is sent and its answer recorded, never judged; one that does not apply to this target (it would
// leave the request unchanged) is recorded as not sent.
import type { HttpRequest } from '../../../src/http/message.js';
import { observation, type CheckRunEnv, type Finding } from '../../run/check.js';
import { NEED, serverCheck, type ServerAuditContext, type ServerCheck } from './context.js';
import { REJECTION_REQUIREMENTS, judgeRejection } from './rejection.js';
import {
  defaultDestination,
  describeOutcome,
  evidenceOf,
  exchange,
  payoutRequest,
} from './requests.js';
import { noPayoutFollows } from './webhook-match.js';

export interface Forgery {
  /** What is forged, as a phrase after "a create-payout request with" ("the key id cut short"). */
  readonly name: string;
  /** The requirement whose quoted text makes accepting the request wrong (or, for `eitherAnswer`, the rule it tries). */
  readonly requirement: string;
  /** The forged request from the unsigned create-payout request, or why it cannot be forged for this target. */
  readonly build: (request: HttpRequest) => HttpRequest | { readonly notSent: string };
  /** Set where the request may arrive as the very same request and credentials as a correct one: why. */
  readonly eitherAnswer?: string;
}

interface Sent {
  readonly findings: Finding[];
  /** The references of the forgeries that had to be refused (none may create a payout). */
  readonly references: readonly string[];
}

async function sendForgery(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  forgery: Forgery,
): Promise<Sent> {
  const { request, reference } = payoutRequest(ctx, { destination: defaultDestination(ctx) });
  const what = `a create-payout request with ${forgery.name}`;
  const built = forgery.build(request);
  if ('notSent' in built)
    return {
      findings: [
        observation(`not sent: ${what}: ${built.notSent}`, { requirement: forgery.requirement }),
      ],
      references: [],
    };
  const ex = await exchange(ctx, env, built);
  if (forgery.eitherAnswer === undefined)
    return {
      findings: judgeRejection(ctx, ex, forgery.requirement, what),
      references: [reference],
    };
  return {
    findings: [
      observation(
        `${what} was answered ${describeOutcome(ex)} (either answer conforms: ${forgery.eitherAnswer})`,
        { requirement: forgery.requirement, evidence: evidenceOf(ctx, ex) },
      ),
    ],
    references: [],
  };
}

/** A MUST check that sends `forgeries(ctx)` (a bounded table) and judges each as described above. */
export function forgeryRefusalCheck<const Id extends string>(spec: {
  readonly id: Id;
  readonly title: string;
  /** Every requirement the forgeries cite (the first is the check's own). */
  readonly requirements: readonly [string, ...string[]];
  readonly forgeries: (ctx: ServerAuditContext) => readonly Forgery[];
}): ServerCheck & { readonly id: Id } {
  // A factory (like serverCheck itself): this module declares no check; the check modules call it.
  return serverCheck<Id>({
    id: spec.id,
    title: spec.title,
    area: 'signing',
    requirements: [...new Set([...spec.requirements, ...REJECTION_REQUIREMENTS])],
    level: 'MUST',
    needs: NEED.signing,
    mutating: true,
    async run(ctx, env) {
      const forgeries = spec.forgeries(ctx);
      const sent = await Promise.all(forgeries.map((f) => sendForgery(ctx, env, f)));
      const findings = sent.flatMap((s) => s.findings);
      const references = sent.flatMap((s) => s.references);
      if (references.length > 0)
        findings.push(
          await noPayoutFollows(ctx, env, references, `forgeries (${references.length} requests)`),
        );
      return findings;
    },
  });
}

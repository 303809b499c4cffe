// The profile's rules as the oracle of the server audit: signed create-payout requests drawn from each rule's forms
// (forgery-kinds.ts), each judged before it is sent by the same rules the verifier runs (`evaluateRequest`) and by
// what the spec requires of a server given each finding (src/profile/finding-verdicts.ts). A request with a finding
// the spec makes a server refuse must be rejected: a success answer fails that requirement, with the request shrunk by
// fast-check to the one nearest the rule's edge; a payout it created fails as in every rejection check. A request
// within every bound must not be refused. Where the spec allows either answer (an RFC 8941 parse that resolves it,
// "not shown", payconform's own strictness) the answer is recorded as an observation, never judged.
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import type { HttpRequest } from '../../../src/http/message.js';
import type { ProfileFinding } from '../../../src/profile/profile-findings.js';
import {
  firstMustRefuse,
  verdictOf,
  type EitherReason,
  type MustRefuse,
} from '../../../src/profile/finding-verdicts.js';
import { evaluateRequest } from '../../../src/profile/profile-rules.js';
import { verifyErrorCodes } from '../../../src/profile/verify-error-codes.js';
import {
  inconclusive,
  notApplicable,
  observation,
  pass,
  violation,
  type CheckRunEnv,
  type Finding,
} from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import { NEED, serverCheck, type ServerAuditContext, type ServerRunContext } from './context.js';
import { formVerdict } from './forgery-form.js';
import { forgeryForms, MAX_FORM_SIZE, type ForgeryForm } from './forgery-kinds.js';
import { REJECTION_REQUIREMENTS } from './rejection.js';
import {
  credentialsOf,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  exchange,
  isSuccess,
  payoutRequest,
  publicKeyRequest,
} from './requests.js';
import { heldPayouts } from './held-payouts.js';
import { member, waitForMentions, webhookEvidence } from './webhook-match.js';
import { FORGERIES_CHECK_ID, FORGERY_DEFAULTS, FORGERY_MAX_SECONDS } from './forgery-settings.js';
import {
  clockBounds,
  onThisClock,
  sampleOf,
  SAME_CLOCK,
  targetNowRange,
  type ClockBounds,
  type ClockSample,
} from './target-clock.js';

export type { ForgerySettings } from './context.js';

/** What the spec requires of a server given one request, before it is sent. */
type Prediction =
  | {
      readonly kind: 'reject';
      readonly finding: ProfileFinding;
      readonly verdict: MustRefuse;
    }
  | { readonly kind: 'accept' }
  | { readonly kind: 'either'; readonly why: string };

const eitherWhy = (why: EitherReason, reason: string, code?: string): string =>
  `either answer conforms${code !== undefined ? `, though payconform's verifier answers ${code}` : ''} (${why}: ${reason})`;

/**
 * The prediction for `request` at `now`: rejected when the profile's rules give a finding the spec makes a server
 * refuse (src/profile/finding-verdicts.ts); else either answer when they give any finding, or the form is one the
 * spec leaves open; else accepted (a request within every bound, signed by the one signer).
 */
export function predict(
  form: ForgeryForm,
  request: HttpRequest,
  nowMs: number,
  clock: ClockBounds = SAME_CLOCK,
): Prediction {
  const { earliest, latest } = targetNowRange(nowMs, clock);
  const first = predictAt(form, request, earliest);
  if (latest === earliest) return first;
  const last = predictAt(form, request, latest);
  if (first.kind === last.kind) return first;
  return {
    kind: 'either',
    why: `either answer conforms here: the target judges created by its own clock, which reads ${earliest}…${latest} when it verifies this request (${clock.source}), and the rules' answer changes within that range`,
  };
}

/** The prediction for `request` when the target's clock reads `now` (whole seconds). */
function predictAt(form: ForgeryForm, request: HttpRequest, now: number): Prediction {
  const findings = evaluateRequest(request, now).findings;
  const refused = firstMustRefuse(findings);
  if (refused !== undefined) return { kind: 'reject', ...refused };
  const first = findings[0];
  const open = first !== undefined ? verdictOf(first) : formVerdict(form);
  if (open.verdict === 'either')
    return { kind: 'either', why: eitherWhy(open.why, open.reason, first?.code) };
  return { kind: 'accept' };
}

/** One drawn request: its form, size, the rules' prediction, and what the target answered. */
interface Sent {
  readonly form: ForgeryForm;
  readonly size: number;
  readonly prediction: Prediction;
  readonly ex: RecordedExchange;
  readonly reference: string;
}

/**
 * Builds and predicts the `size`-th request of `form`, and sends it unless `onlyJudged` and the spec allows either
 * answer (such a form is sent at its edge only: an accepted one costs the target a payout and proves nothing).
 */
async function sendForm(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  clock: ClockBounds,
  form: ForgeryForm,
  size: number,
  onlyJudged: boolean,
): Promise<Sent | undefined> {
  const { request, reference } = payoutRequest(ctx, { destination: defaultDestination(ctx) });
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  const forged = form.build({ request, credentials: credentialsOf(ctx), now, size });
  const prediction = predict(form, forged, nowMs, clock);
  if (onlyJudged && prediction.kind === 'either') return undefined;
  const ex = await exchange(ctx, env, forged);
  return { form, size, prediction, ex, reference };
}

/** Answers read for the target's clock before the drawing (any answer carries a Date). */
const CLOCK_READS = 3;

/** The target's clock beside this one, from the Date headers of CLOCK_READS GETs of its public key, one after another. */
async function readClock(ctx: ServerAuditContext, env: CheckRunEnv): Promise<ClockBounds> {
  const samples: ClockSample[] = [];
  for (let i = 0; i < CLOCK_READS && !env.signal.aborted; i++) {
    const sentAtMs = Date.now();
    const ex = await exchange(ctx, env, publicKeyRequest(ctx));
    samples.push(sampleOf(ex, sentAtMs, Date.now()));
  }
  return clockBounds(samples);
}

/** Refusals that say nothing of the request's signature: the target is busy or slow. */
const BUSY_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** A request the rules reject that the target accepted, or one they accept that it refused (a 4xx). */
function wronglyAnswered(s: Sent): boolean {
  if (s.prediction.kind === 'reject') return isSuccess(s.ex);
  const status = s.ex.response?.status;
  return (
    s.prediction.kind === 'accept' &&
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    !BUSY_STATUSES.has(status)
  );
}

/** What the run drew and saw. */
interface Draw {
  readonly sent: Sent[];
  /** The last request that failed (after shrinking: the shrunk one). */
  failure?: Sent;
  original?: Sent;
  seed: number;
  shrinks: number;
  elapsedMs: number;
}

/** A form (never shrunk to another form) and its distance from the rule's edge (shrunk towards it). */
const FORM_ARBITRARY = fc.tuple(
  fc.noShrink(fc.integer({ min: 0, max: forgeryForms.length - 1 })),
  fc.integer({ min: 0, max: MAX_FORM_SIZE }),
);

/**
 * Sends every form at its edge (size 0) first, all at once and whatever the budget (an edge needs no shrinking), then
 * draws forms and sizes until the time or the runs are spent; a request the rules reject that the target accepts stops
 * the drawing and is shrunk.
 */
async function draw(ctx: ServerAuditContext, env: CheckRunEnv): Promise<Draw> {
  const asked = { ...FORGERY_DEFAULTS, ...ctx.forgeries };
  const settings = { ...asked, seconds: Math.min(asked.seconds, FORGERY_MAX_SECONDS) };
  const seed = settings.seed ?? randomInt(2 ** 31 - 1);
  const started = Date.now();
  const clock = onThisClock(ctx) ? SAME_CLOCK : await readClock(ctx, env);
  const edges = await Promise.all(
    forgeryForms.map((form) => sendForm(ctx, env, clock, form, 0, false)),
  );
  const result: Draw = { sent: edges.flatMap((s) => s ?? []), seed, shrinks: 0, elapsedMs: 0 };
  result.failure = result.original = result.sent.find(wronglyAnswered);
  if (result.failure !== undefined || env.signal.aborted)
    return { ...result, elapsedMs: Date.now() - started };
  const until = Date.now() + settings.seconds * 1000;
  const property = fc.asyncProperty(FORM_ARBITRARY, async ([k, size]) => {
    if (env.signal.aborted || (result.failure === undefined && Date.now() > until)) return true;
    const sent = await sendForm(ctx, env, clock, forgeryForms[k]!, size, true);
    if (sent === undefined) return true;
    if (result.failure === undefined) result.sent.push(sent);
    if (!wronglyAnswered(sent)) return true;
    result.original ??= sent;
    result.failure = sent;
    return false;
  });
  const details = await fc.check(property, {
    seed,
    numRuns: Math.max(0, settings.runs - result.sent.length),
    interruptAfterTimeLimit: (settings.seconds + settings.shrinkSeconds) * 1000,
    markInterruptAsFailure: false,
  });
  result.shrinks = details.numShrinks;
  result.elapsedMs = Date.now() - started;
  return result;
}

/** `401×40, 403×2` */
function tally(sent: readonly Sent[]): string {
  const counts = new Map<string, number>();
  for (const s of sent) {
    const key = s.ex.response === undefined ? 'no answer' : String(s.ex.response.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k}×${n}`).join(', ') || 'none';
}

/** The failing finding: the shrunk request, the rules' code and step, and how to draw it again. */
function failureFinding(ctx: ServerAuditContext, d: Draw, s: Sent): Finding {
  const from = d.original;
  const shrunk =
    from !== undefined && (from.form !== s.form || from.size !== s.size)
      ? `; first drawn as ${from.form.describe(from.size)}, shrunk in ${d.shrinks} step(s)`
      : '';
  const again = `# drawn again: payconform audit server --only signature-forgeries --forge-seed ${d.seed}`;
  if (s.prediction.kind !== 'reject') {
    const evidence = evidenceOf(ctx, s.ex, `form ${s.form.name}, seed ${d.seed}${shrunk}`);
    return violation(
      `a create-payout request with ${s.form.describe(s.size)} was refused; it is within every bound of the profile's rules`,
      {
        requirement: 'SIG-VERIFY-DECISION',
        expected: 'acceptance (the rules find nothing to reject)',
        received: describeOutcome(s.ex),
        evidence: { ...evidence, reproduce: `${evidence.reproduce ?? ''}\n${again}` },
      },
    );
  }
  const { finding: f, verdict } = s.prediction;
  const notes = `form ${s.form.name} (rule: ${s.form.rule}), seed ${d.seed}${shrunk}; the verifier's code ${f.code} at step ${f.step} of the Server verification order ("${verifyErrorCodes[f.code].description}"): ${f.message}`;
  const evidence = evidenceOf(ctx, s.ex, notes);
  return violation(
    `a create-payout request with ${s.form.describe(s.size)} was accepted; the profile's rules reject it with ${f.code}, and the spec makes a server refuse it: "${verdict.words}"`,
    {
      requirement: verdict.requirement,
      expected: `a rejection (${f.code}, step ${f.step}: ${f.expected})`,
      received: `${describeOutcome(s.ex)} (the request carried ${f.received})`,
      evidence: {
        ...evidence,
        reproduce: `${evidence.reproduce ?? ''}\n${again}`,
      },
    },
  );
}

/** Records of the answers where the spec allows either, one per form. */
function eitherAnswers(sent: readonly Sent[]): Finding[] {
  const byForm = new Map<ForgeryForm, Sent[]>();
  for (const s of sent)
    if (s.prediction.kind === 'either') byForm.set(s.form, [...(byForm.get(s.form) ?? []), s]);
  return [...byForm].map(([form, all]) =>
    observation(
      `form ${form.name} (${form.describe(all[0]!.size)}): answered ${tally(all)} (${(all[0]!.prediction as { why: string }).why})`,
      { requirement: 'SIG-VERIFY-DECISION' },
    ),
  );
}

/**
 * After the drawing: no payout for the references of the rejected requests, in the payouts the target's state provider lists (at
 * once), else among the webhooks within the quiet wait. The finding names the first such request's form.
 */
async function noPayoutFromRejected(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  rejected: readonly Sent[],
): Promise<Finding> {
  const byReference = new Map(rejected.map((s) => [s.reference, s]));
  const what = (reference: string): string => {
    const s = byReference.get(reference);
    return s === undefined ? reference : `${s.form.describe(s.size)} (reference ${reference})`;
  };
  const requirement = 'SIG-PAYOUT-CREATE-SIGNED';
  const expected = `no payout for any of the ${rejected.length} rejected requests`;
  const held = await heldPayouts(ctx, env, [...byReference.keys()]);
  const listed = held?.payouts[0];
  if (held !== undefined && listed !== undefined) {
    const reference = listed.reference;
    return violation(`a rejected request still created a payout: ${what(reference)}`, {
      requirement,
      expected,
      received: `${held.payouts.length} payout(s) listed, first ${listed.payoutId}`,
      evidence: held.evidence,
    });
  }
  if (held !== undefined)
    return pass(`the target lists no payout for the ${rejected.length} rejected requests`, {
      requirement,
    });
  if (ctx.webhooks === undefined)
    return notApplicable(
      'not checked that the rejected requests created no payout: no state provider lists payouts (docs/state-hook.md) and no webhook listener is configured',
      { requirement },
    );
  const seen = await waitForMentions(ctx.webhooks, env, ctx.quietWaitMs, [...byReference.keys()]);
  const first = seen[0];
  if (first === undefined)
    return pass(`no payout webhook followed the ${rejected.length} rejected requests`, {
      requirement,
    });
  const reference = member(first, 'payoutReference') ?? '';
  return violation(`a rejected request still created a payout: ${what(reference)}`, {
    requirement,
    expected,
    received: `${seen.length} payout webhook(s)`,
    evidence: webhookEvidence(first),
  });
}

/** The requirements a drawn form can fail a server on: those its finding's classification names. */
const REFUSAL_REQUIREMENTS = [
  ...new Set(
    forgeryForms.flatMap((form) => {
      const v = formVerdict(form);
      return v.verdict === 'must-refuse' ? [v.requirement] : [];
    }),
  ),
];

/** The drawing and what it found: the failure (shrunk), or the pass; the either-answers; no payout from a rejection. */
async function forgeryFindings(ctx: ServerRunContext, env: CheckRunEnv): Promise<Finding[]> {
  const d = await draw(ctx, env);
  ctx.run.seeds.set(FORGERIES_CHECK_ID, d.seed);
  const judged = d.sent.filter((s) => s.prediction.kind === 'reject');
  const answered = judged.filter((s) => s.ex.response !== undefined);
  const within = d.sent.filter((s) => s.prediction.kind === 'accept');
  const summary = `seed ${d.seed}: ${d.sent.length} requests of ${forgeryForms.length} forms in ${(d.elapsedMs / 1000).toFixed(1)} s; ${judged.length} the spec makes a server refuse (answered ${tally(judged)}), ${within.length} within every bound (answered ${tally(within)})`;
  const findings: Finding[] = [];
  if (d.failure !== undefined) findings.push(failureFinding(ctx, d, d.failure));
  else if (answered.length < forgeryForms.length / 2)
    findings.push(
      inconclusive(`too few drawn requests got an answer to judge the target (${summary})`),
    );
  else
    findings.push(
      pass(
        `every request the spec makes a server refuse was rejected, every one within every bound accepted (${summary})`,
        {
          requirement: 'SIG-VERIFY-DECISION',
        },
      ),
    );
  findings.push(...eitherAnswers(d.sent));
  // A rejected request that still created a payout: the target's own listing (or webhooks) show it.
  const rejected = answered.filter((s) => !isSuccess(s.ex));
  if (rejected.length > 0) findings.push(await noPayoutFromRejected(ctx, env, rejected));
  return findings;
}

export const forgeryChecks = [
  serverCheck({
    id: FORGERIES_CHECK_ID,
    title:
      "signed requests drawn at and beyond each of the profile's rules are rejected whenever the spec makes a server refuse them",
    area: 'signing',
    requirements: ['SIG-VERIFY-DECISION', ...REFUSAL_REQUIREMENTS, ...REJECTION_REQUIREMENTS],
    level: 'MUST',
    needs: NEED.signing,
    mutating: true,
    // The drawing bounds itself (its seconds, each request's timeout); this only catches a run that does not.
    timeoutMs: (FORGERY_MAX_SECONDS + FORGERY_DEFAULTS.shrinkSeconds) * 1000 + 60_000,
    async run(ctx, env) {
      return forgeryFindings(ctx, env);
    },
    // Once more, alone: the same draw (the seed that found the failure), not a new one.
    async rerunFailure(ctx, env) {
      const seed = ctx.run.seeds.get(FORGERIES_CHECK_ID);
      return forgeryFindings(
        seed === undefined ? ctx : { ...ctx, forgeries: { ...ctx.forgeries, seed } },
        env,
      );
    },
  }),
] as const;

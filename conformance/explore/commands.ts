// The explorer's commands and what they share: one small object per action on the target (create payout, commit,
// cancel, wait, a patient lane's held payout; payments and refunds are in payment-commands.ts and
// refund-commands.ts; what is drawn is in draws.ts). Each `run` only acts: it looks at the webhooks that came, sends its
// request, and hands what came back to the spec model (conformance/spec-model), which updates its state and judges;
// a broken rule throws a ModelViolation, which fast-check then shrinks to the shortest sequence that still breaks it.
import fc from 'fast-check';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckRunEnv } from '../run/check.js';
import type { RecordedExchange } from '../http/http-client.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { signCorrectly } from '../checks/server/forge.js';
import {
  credentialsOf,
  exchange,
  isSuccess,
  jsonObject,
  payoutActionRequest,
  payoutRequest,
  sendAppCall,
  describeOutcome,
} from '../checks/server/requests.js';
import { webhookKind } from '../checks/server/webhook-match.js';
import { unanswered } from '../checks/no-answer.js';
import type { PaymentPool } from './payment-pool.js';
import {
  observeCreatePayout,
  observePayoutAction,
  observeWebhooks,
  overdue,
  type Answer,
  type AskedPayout,
  type Judgement,
  type ModelPayout,
  type RuleId,
  type SpecState,
  type Verdict,
  type WebhookSeen,
} from '../spec-model/index.js';

/** The explorer's model: the spec model's state (fast-check's "model" of `fc.commands`). */
export type ExplorerModel = SpecState;

/** A rule the target broke, at the step that showed it. */
export class ModelViolation extends Error {
  override name = 'ModelViolation';
  constructor(
    readonly judgement: Judgement,
    readonly step: number,
    readonly exchange?: RecordedExchange,
  ) {
    super(`${judgement.requirement}: ${judgement.message}`);
  }
}

/**
 * A step whose request got no complete answer (docs/verdicts.md, "No answer is not a failure"): it says nothing of
 * what the target did, so the sequence ends there, inconclusive; never a rule broken, never shrunk.
 */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(
    readonly step: number,
    readonly exchange: RecordedExchange,
  ) {
    super(
      `step ${step}: ${exchange.request.method} ${exchange.request.url}: ${describeOutcome(exchange)}`,
    );
  }
}

/**
 * A step that would wait past the end of the exploring time (`Real.until`): the sequence stops there, neither a pass
 * nor a failure (it is not shrunk, and what it did before is kept).
 */
export class OutOfTime extends Error {
  override name = 'OutOfTime';
}

/**
 * How a lane draws its waits. quick: waits under a second (lifecycles, webhooks, commits that come late); patient:
 * also waits of `EXPLORE_DEFAULTS.patientWaitMs`, to see what a target does on its own seconds after a call.
 */
export type Pace = 'quick' | 'patient';

/** One step as it ran: the command as printed, and the exchanges it made. */
export interface StepRecord {
  readonly n: number;
  readonly command: string;
  readonly exchanges: RecordedExchange[];
  /** A step of a refund or of the payment it refunds (the report counts them: the explorer's time shared). */
  readonly refund?: boolean;
}

/** The target side of a run: how to reach it, and what the run did (for the report). */
export interface Real {
  readonly ctx: ServerAuditContext;
  readonly env: CheckRunEnv;
  readonly steps: StepRecord[];
  /** Webhooks with a higher `seq` have not been looked at yet. */
  cursor: number;
  /** What the target answered where the spec leaves the answer open (recorded, never failed). */
  readonly observations: string[];
  readonly cost: { payouts: number; refunds: number; payments: number };
  /** Without /sandbox/: the config's settled payments, lent to one sequence at a time (payment-pool.ts). */
  readonly pool?: PaymentPool;
  /** The steps (numbers) at which each rule was judged: the requirement table shows how many exercised it. */
  readonly judged: Map<RuleId, Set<number>>;
  /** While exploring: the end of the exploring time; a wait past it ends the sequence (OutOfTime). */
  readonly until?: number;
}

/** Lets `ms` pass, unless that would run past the exploring time (then the sequence ends: OutOfTime). */
export async function pause(real: Real, ms: number): Promise<void> {
  if (real.until !== undefined && Date.now() + ms > real.until) throw new OutOfTime();
  await sleep(ms, undefined, { signal: real.env.signal }).catch(() => undefined);
}

export function step(real: Real, command: string, refund = false): StepRecord {
  const s: StepRecord = {
    n: real.steps.length + 1,
    command,
    exchanges: [],
    ...(refund ? { refund } : {}),
  };
  real.steps.push(s);
  return s;
}

export async function send(real: Real, s: StepRecord, request: Parameters<typeof exchange>[2]) {
  const ex = await exchange(real.ctx, real.env, request);
  s.exchanges.push(ex);
  if (unanswered(ex)) throw new NoAnswer(s.n, ex);
  return ex;
}

export async function sendApp(real: Real, s: StepRecord, request: Parameters<typeof exchange>[2]) {
  const { ex, unsignedAttempt } = await sendAppCall(real.ctx, real.env, request);
  if (unsignedAttempt !== undefined) s.exchanges.push(unsignedAttempt);
  s.exchanges.push(ex);
  for (const e of [unsignedAttempt, ex])
    if (e !== undefined && unanswered(e)) throw new NoAnswer(s.n, e);
  return ex;
}

/** What came back, as the model takes it. */
export function answerOf(ex: RecordedExchange): Answer {
  const body = jsonObject(ex);
  return { accepted: isSuccess(ex), outcome: describeOutcome(ex), ...(body ? { body } : {}) };
}

/**
 * Takes the model's verdict on a step: notes the rules it judged and what it recorded, and throws its first
 * judgement as a ModelViolation, with the exchange of the answer that showed it (`answers`, by the judgement's index).
 */
export function take(
  real: Real,
  s: StepRecord,
  v: Verdict,
  answers: readonly RecordedExchange[] = [],
): void {
  for (const rule of v.judged) {
    let steps = real.judged.get(rule);
    if (steps === undefined) real.judged.set(rule, (steps = new Set()));
    steps.add(s.n);
  }
  real.observations.push(...v.observations);
  const j = v.judgements[0];
  if (j !== undefined) throw new ModelViolation(j, s.n, answers[j.answer ?? 0]);
}

/** The webhooks that arrived since the last look (advancing the cursor), as the model takes them. */
function newWebhooks(real: Real): WebhookSeen[] {
  const seen: WebhookSeen[] = [];
  for (const w of real.ctx.webhooks?.received() ?? []) {
    if (w.seq <= real.cursor) continue;
    real.cursor = w.seq;
    const body = w.json;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) continue;
    seen.push({ kind: webhookKind(w), body: body as Record<string, unknown> });
  }
  return seen;
}

/**
 * Hands the model every webhook that arrived since the last look (its payload, what it announces, what it settles),
 * then what time alone decides (a webhook overdue, a refund accepted while another was active).
 */
export function absorbWebhooks(model: ExplorerModel, real: Real, s: StepRecord): void {
  take(real, s, observeWebhooks(model, newWebhooks(real)));
  const late = overdue(model, Date.now());
  if (late !== undefined) take(real, s, { judged: [], judgements: [late], observations: [] });
}

// ---- payouts ----

export class CreatePayout implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly asked: AskedPayout) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const s = step(real, this.toString());
    absorbWebhooks(model, real, s);
    const { request } = payoutRequest(real.ctx, {
      destination: this.asked.destination,
      reference: this.asked.reference,
      amountText: this.asked.amount,
      ...(this.asked.doNotCommitOnCoPMismatch !== undefined
        ? { doNotCommitOnCoPMismatch: this.asked.doNotCommitOnCoPMismatch }
        : {}),
    });
    const ex = await send(real, s, signCorrectly(request, credentialsOf(real.ctx)));
    const made = model.payouts.length;
    const verdict = observeCreatePayout(model, this.asked, answerOf(ex), Date.now());
    real.cost.payouts += model.payouts.length - made;
    take(real, s, verdict, [ex]);
    absorbWebhooks(model, real, s);
  }
  toString(): string {
    const a = this.asked;
    return `createPayout(amount=${a.amount}, reference=${JSON.stringify(a.reference)}, cop=${a.copKey}, doNotCommitOnCoPMismatch=${a.doNotCommitOnCoPMismatch ?? 'omitted'})`;
  }
}

/** Commit or cancel of payout `p`: looks at the webhooks first (what came while it waited is judged on the state before). */
async function payoutActionStep(
  model: ExplorerModel,
  real: Real,
  p: ModelPayout,
  action: 'commit' | 'cancel',
  label: string,
): Promise<void> {
  const s = step(real, `${label} → payout ${p.payoutId} (${p.state})`);
  absorbWebhooks(model, real, s);
  const ex = await sendApp(real, s, payoutActionRequest(real.ctx, p.payoutId, action));
  take(real, s, observePayoutAction(model, p, action, answerOf(ex), Date.now()), [ex]);
  absorbWebhooks(model, real, s);
}

/**
 * Commit or cancel of a payout: the `index`-th (modulo) of the payouts held in AWAITING_COMMIT when `held` and there
 * are any, else of all the payouts made, in whatever state they are.
 */
export class PayoutAction implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly action: 'commit' | 'cancel',
    private readonly index: number,
    private readonly held: boolean,
    /** 0: right away; otherwise waits this long first (a commit or cancel that comes later). */
    private readonly afterMs: number,
  ) {}
  check = (model: Readonly<ExplorerModel>): boolean => model.payouts.length > 0;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    if (this.afterMs > 0) await pause(real, this.afterMs);
    const holding = model.payouts.filter((x) => x.state === 'AWAITING_COMMIT');
    const from = this.held && holding.length > 0 ? holding : model.payouts;
    const p = from[this.index % from.length]!;
    await payoutActionStep(model, real, p, this.action, this.toString());
  }
  toString(): string {
    const when = this.afterMs > 0 ? ` after ${this.afterMs} ms` : '';
    return `${this.action}(${this.held ? 'held ' : ''}payout #${this.index}${when})`;
  }
}

/**
 * A patient lane's payout: created (mostly held), then, `gapMs` later, committed, cancelled or left alone; what must
 * not happen to it after that (a hold that lapses, a webhook nothing caused) shows while the lane watches it.
 */
export class HeldPayout implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly create: CreatePayout,
    private readonly then: 'commit' | 'cancel' | 'nothing',
    private readonly gapMs: number,
  ) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const made = model.payouts.length;
    await this.create.run(model, real);
    const p = model.payouts[made];
    if (p === undefined || this.then === 'nothing') return;
    await pause(real, this.gapMs);
    await payoutActionStep(model, real, p, this.then, `${this.then} of it ${this.gapMs} ms later`);
  }
  toString(): string {
    return `${this.create}, then ${this.then === 'nothing' ? 'left alone' : `${this.then} ${this.gapMs} ms later`}`;
  }
}

/** Lets time pass (bounded), so lifecycles unfold and webhooks arrive; then judges what came. */
export class Wait implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly ms: number) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    await pause(real, this.ms);
    const s = step(real, this.toString());
    absorbWebhooks(model, real, s);
  }
  toString(): string {
    return `wait(${this.ms} ms)`;
  }
}

// One step of a sequence: the operation's input built from the drawn step and what the sequence has seen so far,
// asked of the adapter (with the drawn outage planned), then judged: the step's requests, the SDK's answer, or its
// webhook verdicts.
import type { ClientExchange } from '../checks/client/context.js';
import type { RunningVerifyingEndpoint } from '../client-audit/verifying-endpoint.js';
import type { SdkStep } from './draws.js';
import {
  judgeAnswer,
  judgeRequests,
  judgeWebhook,
  ERROR_REQUIREMENT,
  RESOURCE_REQUIREMENT,
  type Judgement,
} from './judge.js';
import { intentRequirements, judgeIntent } from './intent.js';
import { judgeByModel, type ModelSide } from './model-judge.js';
import { WEBHOOK_VARIANTS } from './draws.js';
import type { OutageRelay } from './outage-relay.js';
import { askOperation, type SdkAnswer } from './protocol.js';
import type { SdkBackend, SequenceEnv } from './env.js';
import { drawnWebhooks, payoutWebhookPayload } from './webhooks.js';

/** What a sequence has seen so far: the services it plays and the payouts the service created for the SDK. */
export interface StepState {
  readonly backend: SdkBackend;
  readonly relay: OutageRelay;
  readonly endpoint: RunningVerifyingEndpoint;
  readonly publicKey: string;
  readonly payouts: Array<Record<string, unknown>>;
  refundablePence: number;
  /** What the spec model keeps of the sequence (the payouts the SDK reported held). */
  readonly model: ModelSide;
}

export interface StepRecord {
  readonly n: number;
  readonly step: SdkStep;
  readonly input: Record<string, unknown>;
  readonly answer: SdkAnswer;
  /** `POST /api/payouts -> 201`, one per request the SDK sent in the step. */
  readonly requests: readonly string[];
  readonly judgements: readonly Judgement[];
  /** Every rule the step judged, whatever its verdict (the requirement table counts the steps per rule). */
  readonly judged: readonly string[];
}

/** A payout id no payout has: a commit or cancel drawn before any payout exists. */
const UNKNOWN_PAYOUT = '00000000-0000-4000-8000-00000000dead';
const money = (pence: number): string => (pence / 100).toFixed(2);

function inputOf(
  step: Exclude<SdkStep, { op: 'verifyWebhook' }>,
  state: StepState,
): Record<string, unknown> {
  switch (step.op) {
    case 'createPayout':
      return {
        amount: step.pence / 100,
        reference: step.reference,
        destination: state.backend.copDestinations[step.cop],
        ...(step.hold !== undefined ? { doNotCommitOnCoPMismatch: step.hold } : {}),
      };
    case 'commitPayout':
    case 'cancelPayout': {
      const payout = state.payouts[step.which % Math.max(1, state.payouts.length)];
      return { payoutId: String(payout?.['payoutId'] ?? UNKNOWN_PAYOUT) };
    }
    case 'createRefund':
      return refundInput(step, state);
  }
}

function refundInput(
  step: Extract<SdkStep, { op: 'createRefund' }>,
  state: StepState,
): Record<string, unknown> {
  const left = state.refundablePence;
  if (step.share === 'unsettled' && state.backend.unsettledPayment)
    return { paymentId: state.backend.unsettledPayment.paymentId, amount: money(step.pence) };
  const pence =
    step.share === 'all'
      ? left
      : step.share === 'over'
        ? left + step.pence
        : Math.min(step.pence, left);
  return { paymentId: state.backend.settledPayment.paymentId, amount: money(Math.max(1, pence)) };
}

const requestLine = (e: ClientExchange): string =>
  `${e.examined.request.method} ${e.examined.request.url.replace(/^[a-z]+:\/\/[^/]*/i, '')} -> ${e.response?.status ?? 'no answer'}`;

/** What the service's last answer of a successful step teaches the sequence (a payout to follow up, less to refund). */
function learn(
  step: SdkStep,
  input: Record<string, unknown>,
  exchanges: readonly ClientExchange[],
  state: StepState,
): void {
  const last = exchanges.at(-1)?.response;
  if (last === undefined || last.status < 200 || last.status >= 300) return;
  if (step.op === 'createPayout') {
    try {
      state.payouts.push(
        JSON.parse(Buffer.from(last.body).toString('utf8')) as Record<string, unknown>,
      );
    } catch {
      /* a body that is not JSON teaches nothing */
    }
  }
  if (step.op === 'createRefund' && input['paymentId'] === state.backend.settledPayment.paymentId)
    state.refundablePence -= Math.round(Number(input['amount']) * 100);
}

async function webhookStep(
  n: number,
  step: Extract<SdkStep, { op: 'verifyWebhook' }>,
  state: StepState,
  env: SequenceEnv,
): Promise<StepRecord> {
  const payload = payoutWebhookPayload(state.payouts.at(-1), 0);
  const verdicts: boolean[] = [];
  let answer: SdkAnswer = { kind: 'unsupported', reason: 'no webhook asked' };
  for (const [i, hook] of drawnWebhooks(step.variant, payload, env.keys).entries()) {
    const input = {
      headers: hook.headers,
      bodyBase64: Buffer.from(hook.body).toString('base64'),
      publicKey: state.publicKey,
    };
    answer = await askOperation(
      env.link,
      `${n}.${i + 1}`,
      'verifyWebhook',
      input,
      env.stepTimeoutMs,
    );
    if (answer.kind !== 'webhook') break;
    verdicts.push(answer.valid);
  }
  const judgements = answer.kind === 'webhook' ? judgeWebhook(step.variant, verdicts) : [];
  const judged = answer.kind === 'webhook' ? [WEBHOOK_VARIANTS[step.variant].requirement] : [];
  return {
    n,
    step,
    input: { variant: step.variant, payload },
    answer,
    requests: [],
    judgements,
    judged,
  };
}

export async function runStep(
  n: number,
  step: SdkStep,
  state: StepState,
  env: SequenceEnv,
): Promise<StepRecord> {
  if (step.op === 'verifyWebhook') return webhookStep(n, step, state, env);
  const input = inputOf(step, state);
  const before = state.endpoint.exchanges().length;
  state.relay.plan(step.outage);
  const answer = await askOperation(env.link, String(n), step.op, input, env.stepTimeoutMs);
  state.relay.plan(undefined);
  const exchanges = state.endpoint.exchanges().slice(before);
  learn(step, input, exchanges, state);
  // What it sent is judged whatever it then said (an SDK answering "unsupported" after sending is still judged).
  const model = judgeByModel(step, input, answer, state.model);
  const handedOn =
    answer.kind === 'unsupported' || answer.kind === 'broken'
      ? []
      : judgeAnswer(step.op, answer, exchanges);
  const judgements =
    answer.kind === 'broken'
      ? []
      : [
          ...judgeRequests(exchanges),
          ...judgeIntent(step.op, input, state.backend.application, exchanges),
          ...handedOn,
          // What the model adds: a rule the SDK's result breaks that passing on the service's answer did not show.
          ...model.judgements.filter(
            (j) =>
              !handedOn.some((h) => h.outcome === 'violation' && h.requirement === j.requirement),
          ),
        ];
  return {
    n,
    step,
    input,
    answer,
    requests: exchanges.map(requestLine),
    judgements,
    judged:
      answer.kind === 'broken'
        ? []
        : [...new Set([...rulesJudged(step.op, answer, exchanges), ...model.judged])],
  };
}

/**
 * The rules an API step judged: the client audit's rules on each request (each outcome's requirement), the request
 * against what the caller asked (the endpoint's request and body requirements), and what the SDK handed its caller
 * against the service's answer (the resource's requirement, or the error's).
 */
function rulesJudged(
  op: Exclude<SdkStep['op'], 'verifyWebhook'>,
  answer: SdkAnswer,
  exchanges: readonly ClientExchange[],
): string[] {
  if (exchanges.length === 0) return [];
  const rules = [
    ...exchanges.flatMap((e) => e.examined.outcomes.flatMap((o) => o.requirement ?? [])),
    ...intentRequirements(op),
  ];
  if (answer.kind === 'resource') rules.push(RESOURCE_REQUIREMENT[op]);
  if (answer.kind === 'error')
    rules.push(
      ERROR_REQUIREMENT.status,
      ...(op === 'createRefund' ? [ERROR_REQUIREMENT.refundBody] : []),
    );
  return [...new Set(rules)];
}

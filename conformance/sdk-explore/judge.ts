// How the SDK explorer judges one step: every request by the client audit's one set of profile rules (each finding,
// not the first), and what the SDK returned to its caller against what the service sent it: nothing lost, nothing
// invented. Pure: the exchanges and the answer in, judgements out.
import type { ClientExchange } from '../checks/client/context.js';
import type { Level } from '../run/check.js';
import { WEBHOOK_VARIANTS, type SdkStep, type WebhookVariant } from './draws.js';
import type { SdkAnswer } from './protocol.js';
import { specDefines } from './spec-properties.js';
import { loadCatalogue } from '../requirements.js';

export interface Judgement {
  readonly outcome: 'violation' | 'observation';
  readonly requirement?: string;
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  readonly level?: Level;
}

/** A violation's level: its rule's own, else its requirement's in the catalogue, else MUST. */
export function levelOf(j: Judgement): Level {
  return (
    j.level ??
    (j.requirement !== undefined ? loadCatalogue().byId.get(j.requirement)?.level : undefined) ??
    'MUST'
  );
}

/** A violation that fails the SDK (MUST); the others warn and never end a search. */
export const failsSdk = (j: Judgement): boolean =>
  j.outcome === 'violation' && levelOf(j) === 'MUST';

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** Every rule a request of the step broke, as the client audit judges it. */
export function judgeRequests(exchanges: readonly ClientExchange[]): Judgement[] {
  return exchanges.flatMap((e) =>
    e.examined.outcomes
      .filter((o) => o.outcome === 'violation')
      .map((o): Judgement => ({
        outcome: 'violation',
        ...(o.requirement !== undefined ? { requirement: o.requirement } : {}),
        message: `request ${e.examined.index} (${e.examined.request.method} ${e.examined.request.url.replace(/^[a-z]+:\/\/[^/]*/i, '')}): ${o.message}`,
        ...(o.expected !== undefined ? { expected: o.expected } : {}),
        ...(o.received !== undefined ? { received: o.received } : {}),
        ...(o.level !== undefined ? { level: o.level } : {}),
      })),
  );
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const numeric = (v: unknown): boolean =>
  typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v));

/** The paths where `given` differs from `sent` (a decimal may be a number on one side and text on the other). */
export function differences(sent: unknown, given: unknown, path = ''): string[] {
  if ((typeof sent === 'number' || typeof given === 'number') && numeric(sent) && numeric(given))
    return Number(sent) === Number(given) ? [] : [path];
  if (typeof sent !== 'object' || sent === null || typeof given !== 'object' || given === null)
    return sent === given ? [] : [path];
  if (Array.isArray(sent) !== Array.isArray(given)) return [path];
  const a = sent as Record<string, unknown>;
  const b = given as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((k) => differences(a[k], b[k], `${path}/${k}`));
}

const valueAt = (v: unknown, path: string): unknown =>
  path
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (o, k) =>
        typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined,
      v,
    );

/** The requirements of what an SDK hands its caller for a service error: the status, and a refund error's body. */
export const ERROR_REQUIREMENT = {
  status: 'ERROR-STATUS-CLASSES',
  refundBody: 'ERROR-REFUND-BODY',
} as const;

/** A held payout's status handed on as sent (judged under the hold's own requirement). */
export const HOLD_REQUIREMENT = 'COP-HOLD-ON-MISMATCH';

/** The requirement of the resource an API operation's answer carries. */
export const RESOURCE_REQUIREMENT: Record<Exclude<SdkStep['op'], 'verifyWebhook'>, string> = {
  createPayout: 'PAYOUT-RESPONSE-RESOURCE',
  commitPayout: 'PAYOUT-RESPONSE-RESOURCE',
  cancelPayout: 'PAYOUT-RESPONSE-RESOURCE',
  createRefund: 'REFUND-RESPONSE-RESOURCE',
};

const RESOURCE_KIND: Record<keyof typeof RESOURCE_REQUIREMENT, 'payout' | 'refund'> = {
  createPayout: 'payout',
  commitPayout: 'payout',
  cancelPayout: 'payout',
  createRefund: 'refund',
};

/**
 * The resource the SDK handed over, against the body the service sent: a member the spec defines must arrive as
 * sent; one it does not define ("receivers must ignore unknown properties") is the SDK's to keep or drop, recorded.
 */
function judgeResource(
  op: SdkStep['op'],
  sent: unknown,
  given: Record<string, unknown>,
): Judgement[] {
  const kind = RESOURCE_KIND[op as keyof typeof RESOURCE_KIND];
  return differences(sent, given).map((path): Judgement => {
    if (path !== '' && !specDefines(kind, path))
      return {
        outcome: 'observation',
        message: `the SDK's ${op} result did not pass on ${path} as sent, a member the spec does not define (what an SDK passes on of unknown properties: not shown)`,
      };
    const held = path === '/status' && valueAt(sent, path) === 'AWAITING_COMMIT';
    const requirement = held
      ? HOLD_REQUIREMENT
      : RESOURCE_REQUIREMENT[op as keyof typeof RESOURCE_REQUIREMENT];
    const what =
      valueAt(given, path) === undefined
        ? 'lost'
        : valueAt(sent, path) === undefined
          ? 'invented'
          : 'changed';
    return {
      outcome: 'violation',
      requirement,
      message: `the SDK's ${op} result ${what} ${path || 'the resource'}: the service sent ${show(valueAt(sent, path))}`,
      expected: show(valueAt(sent, path)),
      received: show(valueAt(given, path)),
    };
  });
}

/** The error the SDK raised, against the error the service answered. */
function judgeError(
  op: SdkStep['op'],
  status: number,
  sentBody: unknown,
  text: string,
  error: Extract<SdkAnswer, { kind: 'error' }>['error'],
): Judgement[] {
  if (error.status !== status)
    return [
      {
        outcome: 'violation',
        requirement: ERROR_REQUIREMENT.status,
        message: `the SDK's ${op} error carries status ${show(error.status)}; the service answered ${status}`,
        expected: String(status),
        received: show(error.status),
      },
    ];
  const errorMessage = (sentBody as Record<string, unknown> | undefined)?.['errorMessage'];
  if (typeof errorMessage !== 'string' || error.body === text || error.message === errorMessage)
    return [];
  const lost = `the SDK's ${op} error lost the service's errorMessage`;
  return [
    op === 'createRefund'
      ? {
          outcome: 'violation',
          requirement: ERROR_REQUIREMENT.refundBody,
          message: lost,
          expected: errorMessage,
          received: show(error.message ?? error.body),
        }
      : {
          outcome: 'observation',
          message: `${lost} (payout error bodies: not shown)`,
          expected: errorMessage,
          received: show(error.message ?? error.body),
        },
  ];
}

/** What the SDK returned for an API operation, against the last answer the service sent it in that step. */
export function judgeAnswer(
  op: SdkStep['op'],
  answer: SdkAnswer,
  exchanges: readonly ClientExchange[],
): Judgement[] {
  const last = exchanges.at(-1)?.response;
  if (answer.kind !== 'resource' && answer.kind !== 'error') return [];
  if (last === undefined)
    return answer.kind === 'resource'
      ? [
          {
            outcome: 'violation',
            requirement: RESOURCE_REQUIREMENT[op as keyof typeof RESOURCE_REQUIREMENT],
            message: `the SDK gave its caller a ${op} resource without any answer from the service`,
            received: show(answer.resource),
          },
        ]
      : [
          {
            outcome: 'observation',
            message: `the SDK raised an error for ${op} without calling the service: ${show(answer.error)}`,
          },
        ];
  const text = Buffer.from(last.body).toString('utf8');
  const json = parseJson(text);
  const ok = last.status >= 200 && last.status < 300;
  if (answer.kind === 'resource' && !ok)
    return [
      {
        outcome: 'violation',
        requirement: ERROR_REQUIREMENT.status,
        message: `the service answered ${op} with ${last.status}, the SDK gave its caller a resource`,
        expected: `an error with status ${last.status}`,
        received: show(answer.resource),
      },
    ];
  if (answer.kind === 'error' && ok)
    return [
      {
        outcome: 'violation',
        requirement: RESOURCE_REQUIREMENT[op as keyof typeof RESOURCE_REQUIREMENT],
        message: `the service answered ${op} with ${last.status} and its resource, the SDK raised an error`,
        expected: show(last.json),
        received: show(answer.error),
      },
    ];
  if (answer.kind === 'resource') return judgeResource(op, json, answer.resource);
  return judgeError(op, last.status, json, text, answer.error);
}

/** The SDK's verdicts on the webhook(s) of one step, against what the variant must get. */
export function judgeWebhook(variant: WebhookVariant, verdicts: readonly boolean[]): Judgement[] {
  const rule = WEBHOOK_VARIANTS[variant];
  const wrong = verdicts.findIndex((v) => v !== rule.valid);
  if (wrong < 0) return [];
  const which = verdicts.length > 1 ? ` (delivery ${wrong + 1} of ${verdicts.length})` : '';
  return [
    {
      outcome: 'violation',
      requirement: rule.requirement,
      message: `the SDK ${rule.valid ? 'refused' : 'accepted'} a ${variant} webhook${which}`,
      expected: rule.valid ? 'accepted' : 'refused',
      received: rule.valid ? 'refused' : 'accepted',
    },
  ];
}

// What the SDK sent, against what its caller asked: each operation's input (and the application it was configured
// for) fixes its request, endpoint and body. An SDK that sends another amount, to another account, under another
// reference, or calls commit when asked to cancel breaks the request's requirement (MUST), whatever the service
// answered. Where the spec leaves the SDK a choice (member order, whitespace, how a decimal is written, a number or a
// string for an amount, `doNotCommitOnCoPMismatch: false` for the default), the check allows it. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { ClientExchange } from '../checks/client/context.js';
import { endpointSpecs, matchEndpoint, type ClientEndpoint } from '../client-audit/endpoints.js';
import { decimalOf, sameAmount } from '../spec-model/judgement.js';
import type { SdkStep } from './draws.js';
import type { Judgement } from './judge.js';
import type { AdapterConfiguration } from './protocol.js';

type ApiOp = Exclude<SdkStep['op'], 'verifyWebhook'>;

/** The endpoint each operation calls. */
export const OPERATION_ENDPOINT = {
  createPayout: 'create-payout',
  commitPayout: 'commit-payout',
  cancelPayout: 'cancel-payout',
  createRefund: 'create-refund',
} as const satisfies Record<ApiOp, ClientEndpoint>;

/** The requirements an operation's requests are judged by against what its caller asked: the request's, and its body's. */
export function intentRequirements(op: ApiOp): string[] {
  const spec = endpointSpecs[OPERATION_ENDPOINT[op]];
  return typeof spec.body === 'object'
    ? [spec.requirement, spec.body.requirement]
    : [spec.requirement];
}

/** What configure told the SDK, besides where to call. */
export type Application = Omit<AdapterConfiguration, 'baseUrl'>;

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

const pathOf = (url: string): string => url.replace(/^[a-z]+:\/\/[^/]*/i, '');

/** The path parameters the operation fixes: from the input (the payout) and the application (the refund's). */
function expectedParams(
  op: ApiOp,
  input: Record<string, unknown>,
  app: Application,
): Record<string, string> {
  if (op === 'commitPayout' || op === 'cancelPayout')
    return { payoutId: String(input['payoutId'] ?? '') };
  if (op === 'createRefund')
    return { merchantId: app.merchantId, applicationId: app.applicationId };
  return {};
}

/** The path as the operation must call it (for the report). */
const expectedPath = (endpoint: ClientEndpoint, params: Record<string, string>): string =>
  endpointSpecs[endpoint].path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );

type FieldRule = readonly [field: string, ok: boolean, asked: unknown, sent: unknown];

/** The body's members the input fixes: each must be sent as asked. */
function bodyRules(
  op: ApiOp,
  input: Record<string, unknown>,
  app: Application,
  body: Record<string, unknown>,
): FieldRule[] {
  const amount = (): FieldRule => {
    const asked = decimalOf(input['amount']);
    return [
      'amount',
      asked !== undefined && sameAmount(body['amount'], asked),
      input['amount'],
      body['amount'],
    ];
  };
  if (op === 'createRefund')
    return [
      [
        'paymentId',
        body['paymentId'] === input['paymentId'],
        input['paymentId'],
        body['paymentId'],
      ],
      amount(),
    ];
  if (op !== 'createPayout') return [];
  const given = (input['destination'] ?? {}) as Record<string, unknown>;
  const sent = body['destination'];
  const sentDestination =
    typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {};
  const hold = input['doNotCommitOnCoPMismatch'];
  return [
    [
      'applicationId',
      body['applicationId'] === app.applicationId,
      app.applicationId,
      body['applicationId'],
    ],
    [
      'payInAccountSelector',
      body['payInAccountSelector'] === app.payInAccountSelector,
      app.payInAccountSelector,
      body['payInAccountSelector'],
    ],
    amount(),
    ['reference', body['reference'] === input['reference'], input['reference'], body['reference']],
    ...Object.entries(given).map(([k, v]): FieldRule => [
      `destination.${k}`,
      isDeepStrictEqual(sentDestination[k], v),
      v,
      sentDestination[k],
    ]),
    // Absent when the caller gave none; false is the spec's default, so sending it says the same.
    [
      'doNotCommitOnCoPMismatch',
      hold === undefined
        ? body['doNotCommitOnCoPMismatch'] === undefined ||
          body['doNotCommitOnCoPMismatch'] === false
        : body['doNotCommitOnCoPMismatch'] === hold,
      hold,
      body['doNotCommitOnCoPMismatch'],
    ],
  ];
}

const parseBody = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};

/** One request of the step against the operation it was asked for. */
function judgeOne(
  op: ApiOp,
  input: Record<string, unknown>,
  app: Application,
  e: ClientExchange,
): Judgement[] {
  const { method, url, body } = e.examined.request;
  const match = matchEndpoint(method, url);
  // Fetching the service's public key is a read any SDK may make; it changes nothing the caller asked.
  if (match.endpoint === 'public-key' && !match.wrongMethod) return [];
  const endpoint = OPERATION_ENDPOINT[op];
  const spec = endpointSpecs[endpoint];
  const where = `request ${e.examined.index} (${method} ${pathOf(url)})`;
  const params = expectedParams(op, input, app);
  const want = `${spec.method} ${expectedPath(endpoint, params)}`;
  const called = `${method} ${match.path}`;
  // Parameters compare decoded: how the SDK percent-encodes them is its choice.
  const sameParams = Object.entries(params).every(([k, v]) => match.params[k] === v);
  if (match.endpoint !== endpoint || match.wrongMethod || !sameParams)
    return [
      {
        outcome: 'violation',
        requirement: spec.requirement,
        message: `${where}: the SDK was asked to ${op} ${show(input)} and called ${called}`,
        expected: want,
        received: called,
      },
    ];
  const rules = spec.body;
  if (rules === 'none' || rules === 'bodyless') return [];
  const sent = parseBody(body);
  // A body that is not a JSON object is the body rules' failure (the client audit's schema check), judged there.
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return [];
  return bodyRules(op, input, app, sent as Record<string, unknown>)
    .filter(([, ok]) => !ok)
    .map(([field, , asked, got]) => ({
      outcome: 'violation' as const,
      requirement: rules.requirement,
      message: `${where}: the SDK was asked to ${op} with ${field} ${show(asked)} and sent ${show(got)}`,
      expected: `${field} ${show(asked)}`,
      received: `${field} ${show(got)}`,
    }));
}

/** Every request of one step against what the caller asked (`input`) of the SDK configured with `app`. */
export function judgeIntent(
  op: ApiOp,
  input: Record<string, unknown>,
  app: Application,
  exchanges: readonly ClientExchange[],
): Judgement[] {
  return exchanges.flatMap((e) => judgeOne(op, input, app, e));
}

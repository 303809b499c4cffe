// The webhook-receiver audit's checks: payconform plays the service and sends each kind of webhook, valid and
// tampered, to the merchant's receiver; valid ones must be answered 200, tampered ones with anything but 200.
import {
  signWebhook,
  WEBHOOK_SIGNATURE_ALGORITHM,
  type ParsedRsaPrivateKey,
} from '../../../src/webhooks/index.js';
import { inconclusive, type Check, type Finding, type Level } from '../../check.js';
import { curlFor } from '../../curl.js';
import { sendRequest, type RecordedExchange } from '../../http-client.js';
import { unanswered } from '../no-answer.js';
import {
  assertSchemaValid,
  createPayload,
  serializePayload,
  withAmountChanged,
  withNonAsciiName,
  withUnknownMembers,
  WEBHOOK_KINDS,
  type WebhookKind,
} from './payloads.js';

export { WEBHOOK_KINDS, type WebhookKind } from './payloads.js';

/**
 * What a webhook-receiver check reads: the receiver URLs, the signing key pair and the key server
 * the receivers fetch from.
 */
export interface WebhookAuditContext {
  /** The receiver's URL for each kind audited. */
  readonly targets: Readonly<Partial<Record<WebhookKind, string>>>;
  /** The service's key: its public half is what the receiver was given. */
  readonly signingKey: ParsedRsaPrivateKey;
  /** Another RSA key, for "signed by another key". */
  readonly otherKey: ParsedRsaPrivateKey;
  /** The applicationId written into the payloads. */
  readonly applicationId: string;
  readonly requestTimeoutMs: number;
}

interface Delivery {
  readonly bytes: Uint8Array;
  /** The Authorization header value; undefined: sent without one. */
  readonly authorization: string | undefined;
}

const deliver = (
  ctx: WebhookAuditContext,
  kind: WebhookKind,
  d: Delivery,
  signal: AbortSignal,
): Promise<RecordedExchange> =>
  sendRequest(
    {
      method: 'PUT',
      url: ctx.targets[kind]!,
      headers: [
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json'],
        ...(d.authorization !== undefined ? ([['Authorization', d.authorization]] as const) : []),
      ],
      body: d.bytes,
    },
    { timeoutMs: ctx.requestTimeoutMs, signal },
  );

const evidence = (ex: RecordedExchange): NonNullable<Finding['evidence']> => ({
  request: ex.request,
  ...(ex.response ? { response: ex.response } : {}),
  reproduce: curlFor(ex.request),
});
const answered = (ex: RecordedExchange): string =>
  ex.response
    ? `answered ${ex.response.status}`
    : `no answer (${ex.error?.code ?? 'NETWORK_ERROR'}: ${ex.error?.message ?? ''})`;

/** A valid delivery must be answered 200. */
function expectAccepted(ex: RecordedExchange, requirement: string, what: string): Finding {
  // The status line is the answer (spec: Events); a body cut short after it changes nothing.
  if (ex.response?.status === 200)
    return { outcome: 'pass', message: `${what}: answered 200`, requirement };
  // No answer (timeout, reset) is not a refusal: a slow or busy receiver is not a non-conformant one.
  if (ex.response === undefined && unanswered(ex))
    return inconclusive(
      `${what}: ${answered(ex)}; no answer is not a refusal, so whether the receiver accepts it is unknown`,
      {
        expected: '200',
        received: ex.error?.code ?? 'no answer',
        requirement,
        evidence: evidence(ex),
      },
    );
  return violationFor(ex, requirement, what);
}

function violationFor(ex: RecordedExchange, requirement: string, what: string): Finding {
  return {
    outcome: 'violation',
    message: `${what}: ${answered(ex)}; the service treats anything but 200 as a failed delivery and sends it again`,
    expected: '200',
    received: ex.response ? String(ex.response.status) : (ex.error?.code ?? 'no answer'),
    requirement,
    evidence: evidence(ex),
  };
}

/**
 * A delivery that must not be accepted: anything but 200. No answer at all (timeout, reset) is not a rejection:
 * the receiver may have accepted and crashed, or never looked, so the check is inconclusive (an error), never a pass.
 */
function expectRejected(ex: RecordedExchange, requirement: string, what: string): Finding {
  if (ex.response?.status === 200)
    return {
      outcome: 'violation',
      message: `${what}: answered 200, so the receiver accepted a webhook it cannot have verified`,
      expected: 'anything but 200 (e.g. 401)',
      received: '200',
      requirement,
      evidence: evidence(ex),
    };
  if (!ex.response) {
    return inconclusive(
      `${what}: ${answered(ex)}; no answer is not a rejection, so whether the receiver accepts it is unknown`,
      {
        expected: 'an answer other than 200 (e.g. 401)',
        received: ex.error?.code ?? 'no answer',
        requirement,
        evidence: evidence(ex),
      },
    );
  }
  return { outcome: 'pass', message: `${what}: ${answered(ex)}`, requirement };
}

interface WebhookCase {
  readonly name: string;
  readonly title: (kind: WebhookKind) => string;
  readonly requirements: readonly string[];
  readonly level: Level;
  run(ctx: WebhookAuditContext, kind: WebhookKind, signal: AbortSignal): Promise<Finding[]>;
}

/** A valid delivery: fresh payload, serialised, validated, signed over exactly those bytes. */
function valid(ctx: WebhookAuditContext, kind: WebhookKind, indent: number): Delivery {
  const bytes = serializePayload(createPayload(kind, ctx.applicationId), indent);
  assertSchemaValid(kind, bytes);
  return { bytes, authorization: signWebhook(bytes, ctx.signingKey) };
}

const REJECT = ['WEBHOOK-PROFILE-REJECT-UNVERIFIED', 'WEBHOOK-VERIFY-RECOMMENDED'];

/** The cases run for every kind, in report order (ids `webhook-<kind>-<name>` are public API). */
export const webhookCases: readonly WebhookCase[] = [
  {
    name: 'accepted',
    title: (k) => `A valid ${k} webhook is answered 200`,
    requirements: ['WEBHOOK-RECEIVER-200'],
    level: 'MUST',
    run: async (ctx, kind, signal) => [
      expectAccepted(
        await deliver(ctx, kind, valid(ctx, kind, 0), signal),
        'WEBHOOK-RECEIVER-200',
        `valid ${kind} webhook`,
      ),
    ],
  },
  {
    name: 'exact-bytes',
    title: (k) =>
      `Valid ${k} webhooks written as the receiver would not write them (indented, 10.50, non-ASCII UTF-8, a final newline) are verified as received and answered 200`,
    requirements: ['WEBHOOK-VERIFY-EXACT-BYTES'],
    level: 'MUST',
    run: async (ctx, kind, signal) => {
      // Each form breaks one common way of not verifying the bytes as received.
      const forms: ReadonlyArray<{ what: string; bytes: Uint8Array; hint: string }> = [
        {
          what: 'indented, amounts as 10.50',
          bytes: serializePayload(createPayload(kind, ctx.applicationId), 2),
          hint: 'a receiver that verifies a re-serialised payload (JSON.parse then JSON.stringify) fails here',
        },
        {
          what: 'a name with non-ASCII characters in UTF-8',
          bytes: serializePayload(
            withNonAsciiName(kind, createPayload(kind, ctx.applicationId)),
            0,
          ),
          hint: 'a receiver that decodes the body in another charset (e.g. Latin-1) before verifying fails here',
        },
        {
          what: 'ending in a newline',
          bytes: new Uint8Array([
            ...serializePayload(createPayload(kind, ctx.applicationId), 2),
            0x0a,
          ]),
          hint: 'a receiver that trims the body before verifying fails here',
        },
      ];
      const findings: Finding[] = [];
      for (const form of forms) {
        assertSchemaValid(kind, form.bytes);
        const ex = await deliver(
          ctx,
          kind,
          { bytes: form.bytes, authorization: signWebhook(form.bytes, ctx.signingKey) },
          signal,
        );
        const f = expectAccepted(
          ex,
          'WEBHOOK-VERIFY-EXACT-BYTES',
          `valid ${kind} webhook, ${form.what}`,
        );
        findings.push(
          f.outcome === 'violation' && ex.response
            ? {
                ...f,
                message: `${f.message}. ${form.hint[0]!.toUpperCase()}${form.hint.slice(1)}: verify the raw body bytes`,
              }
            : f,
        );
        if (!ex.response) break; // a receiver that does not answer: one wait is enough
      }
      return findings;
    },
  },
  {
    name: 'redelivery',
    title: (k) => `The same ${k} delivery sent again is answered 200 (idempotent receiver)`,
    requirements: ['WEBHOOK-IDEMPOTENT', 'WEBHOOK-RECEIVER-200'],
    level: 'MUST',
    run: async (ctx, kind, signal) => {
      const d = valid(ctx, kind, 0);
      const first = await deliver(ctx, kind, d, signal);
      if (first.response?.status !== 200)
        return [
          expectAccepted(first, 'WEBHOOK-RECEIVER-200', `first delivery of the ${kind} webhook`),
        ];
      const again = await deliver(ctx, kind, d, signal);
      return [
        expectAccepted(
          again,
          'WEBHOOK-IDEMPOTENT',
          `the same ${kind} webhook (same bytes and signature) delivered again`,
        ),
      ];
    },
  },
  {
    name: 'unknown-properties',
    title: (k) => `A ${k} webhook with unknown properties is answered 200`,
    requirements: ['WEBHOOK-IGNORE-UNKNOWN'],
    level: 'MUST',
    run: async (ctx, kind, signal) => {
      const bytes = serializePayload(
        withUnknownMembers(kind, createPayload(kind, ctx.applicationId)),
        0,
      );
      assertSchemaValid(kind, bytes, { unknownMembers: true });
      return [
        expectAccepted(
          await deliver(
            ctx,
            kind,
            { bytes, authorization: signWebhook(bytes, ctx.signingKey) },
            signal,
          ),
          'WEBHOOK-IGNORE-UNKNOWN',
          `${kind} webhook with unknown members (top level and nested)`,
        ),
      ];
    },
  },
  {
    name: 'wrong-signature',
    title: (k) => `A ${k} webhook with a wrong signature is not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const d = valid(ctx, kind, 0);
      const [alg, b64] = d.authorization!.split(' ');
      const sig = Buffer.from(b64!, 'base64');
      sig[Math.floor(sig.length / 2)]! ^= 0x01;
      return [
        expectRejected(
          await deliver(
            ctx,
            kind,
            { bytes: d.bytes, authorization: `${alg} ${sig.toString('base64')}` },
            signal,
          ),
          'WEBHOOK-PROFILE-REJECT-UNVERIFIED',
          `${kind} webhook whose signature has one bit flipped`,
        ),
      ];
    },
  },
  {
    name: 'body-changed',
    title: (k) => `A ${k} webhook whose body changed after signing is not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const payload = createPayload(kind, ctx.applicationId);
      const signed = serializePayload(payload, 0);
      const changed = serializePayload(withAmountChanged(kind, payload), 0);
      assertSchemaValid(kind, changed);
      return [
        expectRejected(
          await deliver(
            ctx,
            kind,
            { bytes: changed, authorization: signWebhook(signed, ctx.signingKey) },
            signal,
          ),
          'WEBHOOK-PROFILE-REJECT-UNVERIFIED',
          `${kind} webhook whose amount was changed after signing`,
        ),
      ];
    },
  },
  {
    name: 'reserialised',
    title: (k) =>
      `The same ${k} JSON re-serialised (other whitespace) under the original signature is not accepted`,
    requirements: [...REJECT, 'WEBHOOK-VERIFY-EXACT-BYTES'],
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const payload = createPayload(kind, ctx.applicationId);
      const signed = serializePayload(payload, 0);
      const sent = serializePayload(payload, 2);
      assertSchemaValid(kind, sent);
      const f = expectRejected(
        await deliver(
          ctx,
          kind,
          { bytes: sent, authorization: signWebhook(signed, ctx.signingKey) },
          signal,
        ),
        'WEBHOOK-PROFILE-REJECT-UNVERIFIED',
        `${kind} webhook signed compact, sent indented`,
      );
      return [
        f.outcome === 'violation'
          ? {
              ...f,
              message: `${f.message}: it verifies a re-serialised form of the payload, not the exact bytes received (spec: Webhook authentication, rule 1)`,
            }
          : f,
      ];
    },
  },
  {
    name: 'missing-authorization',
    title: (k) => `A ${k} webhook without Authorization is not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => [
      expectRejected(
        await deliver(
          ctx,
          kind,
          { bytes: valid(ctx, kind, 0).bytes, authorization: undefined },
          signal,
        ),
        'WEBHOOK-VERIFY-RECOMMENDED',
        `${kind} webhook without an Authorization header`,
      ),
    ],
  },
  {
    name: 'empty-authorization',
    title: (k) => `A ${k} webhook with an empty Authorization header is not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => [
      expectRejected(
        await deliver(ctx, kind, { bytes: valid(ctx, kind, 0).bytes, authorization: '' }, signal),
        'WEBHOOK-VERIFY-RECOMMENDED',
        `${kind} webhook with "Authorization:" and an empty value`,
      ),
    ],
  },
  {
    name: 'malformed-authorization',
    title: (k) =>
      `${k[0]!.toUpperCase()}${k.slice(1)} webhooks whose Authorization is not "${WEBHOOK_SIGNATURE_ALGORITHM} <base64 signature>" are not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const d = valid(ctx, kind, 0);
      const b64 = d.authorization!.slice(WEBHOOK_SIGNATURE_ALGORITHM.length + 1);
      // Each value carries no valid signature: a receiver that skips verification when it cannot parse the header accepts them.
      const values: ReadonlyArray<readonly [string, string]> = [
        [WEBHOOK_SIGNATURE_ALGORITHM, 'the algorithm name only, no signature'],
        [`${WEBHOOK_SIGNATURE_ALGORITHM} !!not-base64!!`, 'a signature that is not base64'],
        [
          `${WEBHOOK_SIGNATURE_ALGORITHM} ${b64.slice(0, 64)}`,
          'the signature cut to its first 64 base64 characters',
        ],
        [`${WEBHOOK_SIGNATURE_ALGORITHM} AAAA`, 'a signature of three zero bytes'],
      ];
      const findings: Finding[] = [];
      for (const [authorization, what] of values) {
        const ex = await deliver(ctx, kind, { bytes: d.bytes, authorization }, signal);
        findings.push(
          expectRejected(ex, 'WEBHOOK-PROFILE-REJECT-UNVERIFIED', `${kind} webhook with ${what}`),
        );
        if (!ex.response) break; // a receiver that does not answer: one wait is enough
      }
      return findings;
    },
  },
  {
    name: 'wrong-algorithm',
    title: (k) =>
      `A ${k} webhook naming an algorithm other than ${WEBHOOK_SIGNATURE_ALGORITHM} is not accepted`,
    requirements: REJECT,
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const d = valid(ctx, kind, 0);
      const authorization = d.authorization!.replace(WEBHOOK_SIGNATURE_ALGORITHM, 'SHA1withRSA');
      return [
        expectRejected(
          await deliver(ctx, kind, { bytes: d.bytes, authorization }, signal),
          'WEBHOOK-PROFILE-REJECT-UNVERIFIED',
          `${kind} webhook with "Authorization: SHA1withRSA <valid SHA-256 signature>"`,
        ),
      ];
    },
  },
  {
    name: 'other-key',
    title: (k) => `A ${k} webhook signed by another key is not accepted`,
    requirements: [...REJECT, 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY'],
    level: 'SHOULD',
    run: async (ctx, kind, signal) => {
      const bytes = valid(ctx, kind, 0).bytes;
      return [
        expectRejected(
          await deliver(
            ctx,
            kind,
            { bytes, authorization: signWebhook(bytes, ctx.otherKey) },
            signal,
          ),
          'WEBHOOK-VERIFY-WITH-PUBLIC-KEY',
          `${kind} webhook signed by a key other than the one the service publishes`,
        ),
      ];
    },
  },
];

/** The suite for the kinds audited (in report order: per kind, then per case). */
export function webhookChecks(
  kinds: readonly WebhookKind[] = WEBHOOK_KINDS,
): Check<WebhookAuditContext>[] {
  return kinds.flatMap((kind) =>
    webhookCases.map((c): Check<WebhookAuditContext> => ({
      id: `webhook-${kind}-${c.name}`,
      title: c.title(kind),
      area: `${kind} webhooks`,
      requirements: c.requirements,
      level: c.level,
      appliesTo: 'receiver',
      run: (ctx, env) => c.run(ctx, kind, env.signal),
    })),
  );
}

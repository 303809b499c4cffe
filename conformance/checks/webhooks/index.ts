// The webhook-receiver audit's checks: payconform plays the service and sends each kind of webhook, valid and
// tampered, to the merchant's receiver; valid ones must be answered 200, tampered ones with anything but 200.
import { signWebhook, WEBHOOK_SIGNATURE_ALGORITHM } from '../../../src/webhooks/index.js';
import type { Check, Finding } from '../../run/check.js';
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
import {
  type WebhookAuditContext,
  deliver,
  expectAccepted,
  expectRejected,
  type WebhookCase,
  valid,
} from './delivery.js';

export { WEBHOOK_KINDS, type WebhookKind } from './payloads.js';
export type { WebhookAuditContext } from './delivery.js';

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

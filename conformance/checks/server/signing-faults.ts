// Signing faults sent live: a correctly signed create-payout request with exactly one thing broken must be rejected
// (any 4xx) and must create no payout (no payout webhook follows it). One check per broken rule; some rules are
// broken in more than one way (variants), and the check fails when any variant is accepted.
import { randomBytes, randomUUID } from 'node:crypto';
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { observation, type Finding } from '../../run/check.js';
import { NEED, serverCheck, type ServerCheck } from './context.js';
import { signBroken, signCorrectly, withoutHeaders } from './forge.js';
import { REJECTION_REQUIREMENTS, judgeRejection } from './rejection.js';
import {
  credentialsOf,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  exchange,
  payoutRequest,
  PAYOUTS_PATH,
} from './requests.js';
import { noPayoutFollows } from './webhook-match.js';
import { onThisClock } from './target-clock.js';
import {
  type RejectionSpec,
  nowSeconds,
  expiredAge,
  signed,
  alterReference,
} from './signing-fault-variants.js';

/** Builds a rejection check: every variant is sent (concurrently), judged, then one quiet wait for stray webhooks. */
function rejectionCheck<const Id extends string>(
  spec: RejectionSpec<Id>,
): ServerCheck & { readonly id: Id } {
  return serverCheck({
    id: spec.id,
    title: spec.title,
    area: 'signing',
    requirements: [...spec.requirements, ...REJECTION_REQUIREMENTS],
    level: spec.level ?? 'MUST',
    needs: NEED.signing,
    mutating: true,
    async run(ctx, env) {
      const outcomes = await Promise.all(
        spec.variants.map(async (variant) => {
          const { request, reference } = payoutRequest(ctx, {
            destination: defaultDestination(ctx),
          });
          const broken = variant.build(ctx, request, reference);
          const ex = await exchange(ctx, env, broken.request);
          return {
            findings: judgeRejection(
              ctx,
              ex,
              spec.requirements[0],
              `a create-payout request with ${variant.name}`,
            ),
            references: broken.references ?? [reference],
          };
        }),
      );
      const findings: Finding[] = outcomes.flatMap((o) => o.findings);
      for (const variant of spec.recorded ?? []) {
        const { request, reference } = payoutRequest(ctx, { destination: defaultDestination(ctx) });
        const ex = await exchange(ctx, env, variant.build(ctx, request, reference).request);
        findings.push(
          observation(
            `a create-payout request with ${variant.name} was answered ${describeOutcome(ex)} (either answer conforms)`,
            { requirement: spec.requirements[0], evidence: evidenceOf(ctx, ex) },
          ),
        );
      }
      const what =
        spec.variants.length === 1
          ? `request (${spec.variants[0]!.name})`
          : `requests (${spec.variants.map((v) => v.name).join('; ')})`;
      findings.push(
        await noPayoutFollows(
          ctx,
          env,
          outcomes.flatMap((o) => o.references),
          what,
        ),
      );
      return findings;
    },
  });
}

export const signingFaultChecks = [
  rejectionCheck({
    id: 'signature-headers-missing',
    title: 'a create-payout request without Signature or Signature-Input is rejected',
    requirements: ['SIG-VERIFY-EXTRACT', 'SIG-HEADERS-BODY', 'SIG-PAYOUT-CREATE-SIGNED'],
    variants: [
      {
        name: 'the Signature header removed',
        build: (ctx, r) => ({ request: withoutHeaders(signed(ctx, r), 'signature') }),
      },
      {
        name: 'the Signature-Input header removed',
        build: (ctx, r) => ({ request: withoutHeaders(signed(ctx, r), 'signature-input') }),
      },
      {
        name: 'both signature headers removed',
        build: (ctx, r) => ({
          request: withoutHeaders(signed(ctx, r), 'signature', 'signature-input'),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'content-digest-missing',
    title: 'a create-payout request without Content-Digest is rejected',
    requirements: ['SIG-HEADERS-BODY', 'SIG-VERIFY-DIGEST'],
    variants: [
      {
        name: 'no Content-Digest header (signed with an empty content-digest component)',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), { contentDigest: null }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'content-digest-mismatch',
    title: 'a Content-Digest that does not match the body is rejected',
    requirements: ['SIG-VERIFY-DIGEST', 'DIGEST-SHA512'],
    variants: [
      {
        name: 'a Content-Digest computed over other bytes (and signed as such)',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            contentDigest: computeContentDigest(new TextEncoder().encode('{}'), ['sha-512']),
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'body-changed-after-signing',
    title: 'a body changed after signing is rejected',
    requirements: ['SIG-VERIFY-DIGEST', 'SIG-PAYOUT-CREATE-SIGNED'],
    variants: [
      {
        name: 'the body changed after signing (one character of the reference, same length)',
        build: (ctx, r, reference) => {
          const request = signed(ctx, r);
          const other = alterReference(reference);
          const body = new TextEncoder().encode(
            new TextDecoder().decode(request.body).replace(reference, other),
          );
          return { request: { ...request, body }, references: [reference, other] };
        },
      },
    ],
  }),
  rejectionCheck({
    id: 'path-changed-after-signing',
    title: 'a request whose path differs from the signed @path is rejected',
    requirements: ['SIG-BASE-PATH', 'SIG-VERIFY-SIGNATURE', 'SIG-VERIFY-REBUILD-BASE'],
    variants: [
      {
        name: 'a signature over another @path (/api/v2/payouts)',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            signedUrl: `${ctx.baseUrl}/api/v2/payouts`,
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'authority-changed-after-signing',
    title: 'a request whose authority differs from the signed @authority is rejected',
    requirements: ['SIG-BASE-AUTHORITY', 'SIG-VERIFY-SIGNATURE', 'SIG-VERIFY-REBUILD-BASE'],
    variants: [
      {
        name: 'a signature over another @authority (payconform-other.invalid:8443)',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            signedUrl: `http://payconform-other.invalid:8443${PAYOUTS_PATH}`,
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'created-expired',
    title: `a signature created more than ${serviceProfile.maxAgeSeconds} s ago is rejected`,
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'LIMIT-SIGNATURE-VALIDITY'],
    variants: [
      {
        name: `created ${serviceProfile.maxAgeSeconds + 1} s in the past (the embedded service), ${expiredAge(false)} s (another target, whose clock may differ from this machine's)`,
        build: (ctx, r) => ({
          request: signCorrectly(r, credentialsOf(ctx), {
            created: nowSeconds() - expiredAge(onThisClock(ctx)),
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'created-in-future',
    title: 'a signature created far in the future is rejected',
    requirements: ['SIG-PROFILE-FUTURE-CREATED', 'LIMIT-SIGNATURE-VALIDITY'],
    level: 'SHOULD',
    variants: [
      {
        name: 'created one hour in the future',
        build: (ctx, r) => ({
          request: signCorrectly(r, credentialsOf(ctx), { created: nowSeconds() + 3600 }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'nonce-too-long',
    title: 'a nonce of 51 characters is rejected',
    requirements: ['LIMIT-NONCE', 'SIG-PARAM-NONCE'],
    variants: [
      {
        name: 'a nonce of 51 characters',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            nonce: randomBytes(26)
              .toString('hex')
              .slice(0, serviceProfile.nonceMaxLength + 1),
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'nonce-missing',
    title: 'a signature without a nonce is rejected',
    requirements: ['SIG-VERIFY-NONCE-PRESENT', 'LIMIT-NONCE', 'SIG-PARAM-NONCE'],
    variants: [
      {
        name: 'no nonce parameter',
        build: (ctx, r) => ({ request: signBroken(r, credentialsOf(ctx), { nonce: null }) }),
      },
    ],
  }),
  rejectionCheck({
    id: 'alg-not-ed25519',
    title: 'an alg parameter other than ed25519 is rejected',
    requirements: ['SIG-PARAM-ALG', 'SIG-ALGORITHMS', 'SIG-VERIFY-PARSE'],
    variants: [
      {
        name: 'alg="rsa-pss-sha512"',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), { alg: 'rsa-pss-sha512' }),
        }),
      },
      {
        name: 'no alg parameter',
        build: (ctx, r) => ({ request: signBroken(r, credentialsOf(ctx), { alg: null }) }),
      },
      // RFC 9421 algorithm names are case-sensitive, and the spec's is lower-case.
      {
        name: 'alg="ED25519" (upper case)',
        build: (ctx, r) => ({ request: signBroken(r, credentialsOf(ctx), { alg: 'ED25519' }) }),
      },
    ],
  }),
  rejectionCheck({
    id: 'key-id-unknown',
    title: 'an unknown key id is rejected',
    requirements: ['SIG-VERIFY-KEY-RESOLVE', 'SIG-PARAM-KEYID'],
    variants: [
      {
        name: 'an unknown keyid',
        build: (ctx, r) => ({
          request: signCorrectly(r, {
            ...credentialsOf(ctx),
            keyId: `payconform-unknown-${randomBytes(4).toString('hex')}`,
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'application-secret-wrong',
    title: 'a wrong or missing application secret is rejected',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    variants: [
      {
        name: 'a wrong x-application-secret (signed as sent)',
        build: (ctx, r) => ({
          request: signCorrectly(r, {
            ...credentialsOf(ctx),
            applicationSecret: `wrong-${randomBytes(12).toString('hex')}`,
          }),
        }),
      },
      {
        name: 'no x-application-secret header',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), { applicationSecret: null }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'application-id-missing',
    title: 'a missing or unknown application id is rejected',
    requirements: ['SIG-VERIFY-APPLICATION-ID', 'APP-ID-REQUIRED', 'APP-CREDENTIALS-CHECKED'],
    variants: [
      {
        name: 'no x-application-id header',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), { applicationId: null }),
        }),
      },
      {
        name: 'an unknown x-application-id (signed as sent)',
        build: (ctx, r) => ({
          request: signCorrectly(r, { ...credentialsOf(ctx), applicationId: randomUUID() }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'components-reordered',
    title: 'covered components in another order are rejected',
    requirements: ['SIG-BASE-COMPONENTS-ORDER', 'SIG-VERIFY-PARSE'],
    variants: [
      {
        name: 'the covered components in another order (@path before @method)',
        build: (ctx, r) => {
          const [m, p, ...rest] = serviceProfile.componentNames;
          return { request: signBroken(r, credentialsOf(ctx), { components: [p!, m!, ...rest] }) };
        },
      },
    ],
  }),
  rejectionCheck({
    id: 'components-reduced',
    title: 'fewer covered components than the eight are rejected',
    requirements: ['SIG-BASE-COMPONENTS-ORDER', 'SIG-VERIFY-PARSE'],
    variants: [
      {
        name: 'x-application-secret not covered',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            components: serviceProfile.componentNames.filter((c) => c !== 'x-application-secret'),
          }),
        }),
      },
      {
        name: 'content-digest not covered',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            components: serviceProfile.componentNames.filter((c) => c !== 'content-digest'),
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'query-not-signed',
    title: 'a request whose signed @path leaves out the query string is rejected',
    requirements: ['SIG-BASE-PATH', 'SIG-VERIFY-SIGNATURE', 'SIG-VERIFY-REBUILD-BASE'],
    // RFC 9421's @path excludes the query (§2.2.6); the profile's includes it, so a verifier built on the RFC
    // default accepts this request.
    variants: [
      {
        name: 'a query string (?pc=1) sent but left out of the signed @path',
        build: (ctx, r) => ({
          request: signBroken({ ...r, url: `${r.url}?pc=1` }, credentialsOf(ctx), {
            signedUrl: `${ctx.baseUrl}${PAYOUTS_PATH}`,
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'content-digest-sha256',
    title: 'a Content-Digest in sha-256 (not sha-512) is rejected',
    requirements: ['DIGEST-SHA512', 'SIG-ALGORITHMS', 'SIG-VERIFY-DIGEST'],
    // RFC 9530 lets the sender choose the algorithm; the spec fixes SHA-512.
    variants: [
      {
        name: 'a correct sha-256 Content-Digest instead of sha-512',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            contentDigest: computeContentDigest(r.body, ['sha-256']),
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'components-extra',
    title: 'covered components beyond the eight are rejected',
    requirements: ['SIG-BASE-COMPONENTS-ORDER', 'SIG-VERIFY-PARSE'],
    // A generic RFC 9421 verifier checks that the required components are covered, not that nothing else is.
    variants: [
      {
        name: 'the eight covered components followed by "accept"',
        build: (ctx, r) => ({
          request: signBroken(r, credentialsOf(ctx), {
            components: [...serviceProfile.componentNames, 'accept'],
          }),
        }),
      },
    ],
  }),
  rejectionCheck({
    id: 'label-not-sig1',
    title: 'a request whose only signature label is not sig1 is rejected',
    requirements: ['SIG-LABEL-SIG1', 'SIG-INPUT-HEADER'],
    // The spec says the client's label is always sig1; it does not say a server must refuse other labels beside a
    // valid sig1, so that request is only recorded.
    variants: [
      {
        name: 'the label sig2 instead of sig1',
        build: (ctx, r) => ({ request: signBroken(r, credentialsOf(ctx), { label: 'sig2' }) }),
      },
    ],
    recorded: [
      {
        name: 'a valid sig1 and a second label sig2 beside it',
        build: (ctx, r) => ({ request: signBroken(r, credentialsOf(ctx), { extraLabel: 'sig2' }) }),
      },
    ],
  }),
] as const;

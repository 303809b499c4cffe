// Per-request rule evaluation of the client audit: each rule of the spec judged separately, by requirement id,
// on the request exactly as it arrived (raw field lines, exact body bytes). Pure apart from the session's memory.
import { createHash, timingSafeEqual } from 'node:crypto';
import { computeContentDigest, parseContentDigest } from '../../src/digest/content-digest.js';
import type { Ed25519Backend, Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { nodeBackend } from '../../src/ed25519/node-backend.js';
import { getFieldValues, type HttpRequest } from '../../src/http/message.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import { validatePayload } from '../../src/schemas/validate-payload.js';
import { verifySignatureBase } from '../../src/signatures/create-signature.js';
import { createSignatureBase } from '../../src/signatures/signature-base.js';
import {
  parseSignature,
  parseSignatureInput,
  type SignatureInput,
} from '../../src/signatures/signature-fields.js';
import type { Level } from '../check.js';
import { diagnoseContentDigest, diagnoseSignature } from '../diagnose-signature.js';
import {
  endpointSpecs,
  matchEndpoint,
  mediaTypeOf,
  nearEndpoint,
  type ClientEndpoint,
  type EndpointMatch,
} from './endpoints.js';

/** The rules, in report order (each becomes one check of the client audit; ids are public API). */
export const CLIENT_RULE_IDS = [
  'client-endpoint',
  'client-signature-headers',
  'client-signature-syntax',
  'client-signature-label',
  'client-covered-components',
  'client-signature-parameter-order',
  'client-signature-alg',
  'client-signature-keyid',
  'client-signature-created',
  'client-signature-nonce',
  'client-content-digest',
  'client-content-type',
  'client-accept',
  'client-request-body',
  'client-application-headers',
  'client-signature-verifies',
] as const;

export type ClientRuleId = (typeof CLIENT_RULE_IDS)[number];

export interface RuleOutcome {
  readonly rule: ClientRuleId;
  readonly outcome: 'pass' | 'violation' | 'observation' | 'n/a';
  readonly requirement?: string;
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  /** The signature or digest diagnosis, as text for the report. */
  readonly notes?: string;
  /** Overrides the requirement's level (a finding the spec's words support only as a SHOULD). */
  readonly level?: Level;
}

/** The client's credentials, as configured for the audit. */
export interface ClientCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly publicKey: Ed25519PublicKey;
  /** When unset, any merchant id in the refund path is accepted. */
  readonly merchantId?: string;
}

export interface ExaminedRequest {
  /** 1-based, in arrival order. */
  readonly index: number;
  /** Milliseconds since the epoch when the request was complete. */
  readonly receivedAt: number;
  readonly endpoint?: ClientEndpoint;
  readonly request: HttpRequest;
  readonly outcomes: readonly RuleOutcome[];
}

/**
 * Skew between "created" and the request's arrival above which the audit warns (spec: "client clocks should be
 * synchronised"). A client that signs just before sending lands within a second or two; payconform's tolerance.
 */
export const CLOCK_SKEW_TOLERANCE_SECONDS = 30;

export interface ClientSessionOptions {
  readonly backend?: Ed25519Backend;
  /** Warn (SIG-CLOCK-SYNC) when |arrival - created| exceeds this many seconds (default 30). */
  readonly clockSkewToleranceSeconds?: number;
  /** Failed signatures diagnosed with the full pair search; later ones try single mistakes only (default 25). */
  readonly fullDiagnoses?: number;
}

/** The Content-Digest of an empty body. */
const EMPTY_BODY_DIGEST = computeContentDigest(new Uint8Array(0));

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The session: credentials, nonces seen so far, and the diagnosis budget. One per audit run. */
export class ClientSession {
  readonly #nonces = new Map<string, number>();
  readonly #secretDigest: Buffer;
  #diagnoses = 0;
  #count = 0;

  constructor(
    readonly credentials: ClientCredentials,
    private readonly options: ClientSessionOptions = {},
  ) {
    this.#secretDigest = sha256(credentials.applicationSecret);
  }

  /** Examines one request as it arrived (`receivedAt` in ms). Never throws for hostile input. */
  examine(request: HttpRequest, receivedAt: number): ExaminedRequest {
    this.#count += 1;
    const index = this.#count;
    let outcomes: RuleOutcome[];
    let endpoint: ClientEndpoint | undefined;
    try {
      const match = matchEndpoint(request.method, targetOf(request.url));
      endpoint = match.wrongMethod ? undefined : match.endpoint;
      outcomes = this.#evaluate(request, receivedAt, match, index);
    } catch (error) {
      // A defect of a rule must not hide the others' verdicts: record it on the endpoint rule.
      outcomes = [
        {
          rule: 'client-endpoint',
          outcome: 'violation',
          message: `the audit could not examine this request: ${error instanceof Error ? error.message : String(error)}`,
        },
      ];
    }
    return {
      index,
      receivedAt,
      ...(endpoint !== undefined ? { endpoint } : {}),
      request,
      outcomes,
    };
  }

  #secretMatches(value: string): boolean {
    return timingSafeEqual(sha256(value), this.#secretDigest);
  }

  #evaluate(
    request: HttpRequest,
    receivedAt: number,
    match: EndpointMatch,
    index: number,
  ): RuleOutcome[] {
    const out: RuleOutcome[] = [];
    const push = (
      rule: ClientRuleId,
      outcome: RuleOutcome['outcome'],
      requirement: string | undefined,
      message: string,
      extra: Partial<Pick<RuleOutcome, 'expected' | 'received' | 'notes' | 'level'>> = {},
    ): void => {
      out.push({
        rule,
        outcome,
        ...(requirement !== undefined ? { requirement } : {}),
        message,
        ...extra,
      });
    };
    const na = (rule: ClientRuleId, message: string): void => push(rule, 'n/a', undefined, message);
    const { credentials } = this;
    const spec =
      match.endpoint !== undefined && !match.wrongMethod
        ? endpointSpecs[match.endpoint]
        : undefined;
    const headers = request.headers;
    const values = (name: string): string[] => getFieldValues(headers, name);

    // --- the endpoint and its path parameters
    if (match.endpoint !== undefined && match.wrongMethod) {
      const s = endpointSpecs[match.endpoint];
      push(
        'client-endpoint',
        'violation',
        s.requirement,
        `${request.method} ${match.path}: the ${s.title} endpoint takes ${s.method}`,
        { expected: `${s.method} ${s.path}`, received: `${request.method} ${match.path}` },
      );
    } else if (spec === undefined) {
      const near = nearEndpoint(match.path);
      const s = near !== undefined ? endpointSpecs[near.endpoint] : undefined;
      if (near !== undefined && s !== undefined && s.method === request.method) {
        // Not another endpoint but the spec's own path written differently: the spec names the path (and the service 404s).
        push(
          'client-endpoint',
          'violation',
          s.requirement,
          `${request.method} ${match.path} is the ${s.title} path with ${near.how}; the spec's path is ${s.path}`,
          { expected: `${s.method} ${s.path}`, received: `${request.method} ${match.path}` },
        );
      } else
        push(
          'client-endpoint',
          'observation',
          'RETRIEVAL-ENDPOINTS',
          `${request.method} ${match.path} is none of the spec's endpoints (the service answers 404 or 405)`,
        );
    } else if (match.endpoint === 'create-refund') {
      const problems: string[] = [];
      if (match.params['applicationId'] !== credentials.applicationId)
        problems.push(
          `applicationId "${match.params['applicationId'] ?? ''}" in the path is not the configured application id`,
        );
      if (
        credentials.merchantId !== undefined &&
        match.params['merchantId'] !== credentials.merchantId
      )
        problems.push(
          `merchantId "${match.params['merchantId'] ?? ''}" in the path is not the configured merchant id`,
        );
      if (problems.length > 0)
        push('client-endpoint', 'violation', 'REFUND-CREATE-REQUEST', problems.join('; '), {
          expected: `/api/merchants/${credentials.merchantId ?? '<merchantId>'}/applications/${credentials.applicationId}/refunds`,
          received: match.path,
        });
      else
        push(
          'client-endpoint',
          'pass',
          spec.requirement,
          `${request.method} ${match.path} (${spec.title})`,
        );
    } else {
      push(
        'client-endpoint',
        'pass',
        spec.requirement,
        `${request.method} ${match.path} (${spec.title})`,
      );
    }

    // --- signature fields
    const inputLines = values('signature-input');
    const signatureLines = values('signature');
    const isSigned = inputLines.length > 0 || signatureLines.length > 0;
    const signatureRequired = spec?.signature === 'required';
    const bodyless = serviceProfile.bodylessMethods.includes(request.method);
    const headersRequirement = bodyless ? 'SIG-HEADERS-BODYLESS' : 'SIG-HEADERS-BODY';
    const signatureRules: ClientRuleId[] = [
      'client-signature-syntax',
      'client-signature-label',
      'client-covered-components',
      'client-signature-parameter-order',
      'client-signature-alg',
      'client-signature-keyid',
      'client-signature-created',
      'client-signature-nonce',
      'client-content-digest',
      'client-signature-verifies',
    ];

    let input: SignatureInput | undefined;
    let signature: Uint8Array | undefined;
    if (!isSigned && !signatureRequired) {
      if (spec?.signature === 'optional')
        push(
          'client-signature-headers',
          'observation',
          'SIG-OTHER-ENDPOINTS-SIGNED',
          `${spec.title} sent unsigned (the spec does not show whether it must be signed; its examples carry only the application headers)`,
        );
      else na('client-signature-headers', 'not a signed request');
      for (const r of signatureRules) na(r, 'not a signed request');
    } else {
      const missing = [
        ...(inputLines.length === 0 ? ['Signature-Input'] : []),
        ...(signatureLines.length === 0 ? ['Signature'] : []),
      ];
      if (missing.length > 0) {
        const requirement =
          missing.length === 2 && signatureRequired
            ? 'SIG-PAYOUT-CREATE-SIGNED'
            : headersRequirement;
        push(
          'client-signature-headers',
          'violation',
          requirement,
          `missing ${missing.map((m) => `"${m}"`).join(' and ')} header${missing.length > 1 ? 's' : ''}${signatureRequired ? ': payout creation must be signed' : ''}`,
          {
            expected: 'Signature-Input and Signature',
            received: missing.length === 2 ? 'neither' : `no ${missing[0]}`,
          },
        );
        for (const r of signatureRules)
          if (r !== 'client-content-digest') na(r, 'no signature to examine');
      } else {
        push(
          'client-signature-headers',
          'pass',
          headersRequirement,
          'Signature-Input and Signature present',
        );
        const inputs = parseSignatureInput(inputLines.join(', '));
        const sigs = parseSignature(signatureLines.join(', '));
        // Each malformation rests on the header's form as the spec gives it (Step 4: Signature-Input; Step 5: Signature).
        const syntax: Array<{ requirement: string; message: string; received: string }> = [];
        const inputText = `Signature-Input: ${inputLines.join(', ')}`;
        const signatureText = `Signature: ${signatureLines.join(', ')}`;
        if (!inputs.ok)
          syntax.push({
            requirement: 'SIG-INPUT-HEADER',
            message: inputs.message,
            received: inputText,
          });
        else if (inputs.value.size === 0)
          syntax.push({
            requirement: 'SIG-INPUT-HEADER',
            message:
              'Signature-Input is empty: it carries sig1=(<the eight components>);created=...;keyid=...;alg=...;nonce=...',
            received: inputText,
          });
        if (!sigs.ok)
          syntax.push({
            requirement: 'SIG-SIGNATURE-HEADER',
            message: `${sigs.message}${base64Hint(signatureLines.join(', '))}`,
            received: signatureText,
          });
        else if (sigs.value.size === 0)
          syntax.push({
            requirement: 'SIG-SIGNATURE-HEADER',
            message: 'Signature is empty: it carries sig1=:<88 base64 characters>:',
            received: signatureText,
          });
        if (syntax.length > 0) {
          for (const x of syntax)
            push(
              'client-signature-syntax',
              'violation',
              x.requirement,
              `not in the form the spec gives: ${x.message}`,
              {
                expected:
                  x.requirement === 'SIG-INPUT-HEADER'
                    ? 'sig1=("@method" ... "x-application-secret");created=<UNIX_SECONDS>;keyid="<KEY_ID>";alg="ed25519";nonce="<NONCE>"'
                    : 'sig1=:<BASE64_SIGNATURE>: (88 characters of padded base64)',
                received: x.received,
              },
            );
        } else if (inputs.ok && sigs.ok) {
          const short = [...sigs.value].filter(
            ([, b]) => b.length !== serviceProfile.signatureLength,
          );
          if (short.length > 0)
            push(
              'client-signature-syntax',
              'violation',
              'SIG-SIGNATURE-HEADER',
              `the signature "${short[0]![0]}" is ${short[0]![1].length} bytes; an Ed25519 signature is 64 bytes (88 base64 characters)`,
              { expected: '64 bytes', received: `${short[0]![1].length} bytes` },
            );
          else
            push(
              'client-signature-syntax',
              'pass',
              'SIG-PROFILE-STRUCTURED-FIELDS',
              'Signature-Input and Signature are in the form the spec gives (RFC 8941 Dictionaries, a 64-byte signature)',
            );
          const labels = [...new Set([...inputs.value.keys(), ...sigs.value.keys()])];
          const others = labels.filter((l) => l !== serviceProfile.label);
          if (others.length === 0)
            push('client-signature-label', 'pass', 'SIG-LABEL-SIG1', 'label "sig1"');
          else if (inputs.value.has(serviceProfile.label) && sigs.value.has(serviceProfile.label)) {
            // sig1 is there; a server may verify sig1 alone (RFC 9421 §7.1.2 lets a verifier choose), or refuse the rest.
            push(
              'client-signature-label',
              'violation',
              'SIG-LABEL-SIG1',
              `labels ${others.map((l) => `"${l}"`).join(', ')} sent beside "sig1": the spec's headers carry sig1 only, and a server may refuse the others`,
              { expected: 'sig1', received: labels.join(', '), level: 'SHOULD' },
            );
          } else
            push(
              'client-signature-label',
              'violation',
              'SIG-LABEL-SIG1',
              `the label is always "sig1"; found ${labels.map((l) => `"${l}"`).join(', ')}`,
              { expected: 'sig1', received: labels.join(', ') },
            );
          const chosen = inputs.value.has(serviceProfile.label)
            ? serviceProfile.label
            : inputs.value.size === 1
              ? [...inputs.value.keys()][0]
              : undefined;
          input = chosen !== undefined ? inputs.value.get(chosen) : undefined;
          signature =
            chosen !== undefined
              ? (sigs.value.get(chosen) ??
                (sigs.value.size === 1 ? [...sigs.value.values()][0] : undefined))
              : undefined;
        }
        if (syntax.length > 0)
          na('client-signature-label', 'Signature-Input or Signature does not parse');
        if (input === undefined) {
          for (const r of signatureRules)
            if (
              r !== 'client-signature-syntax' &&
              r !== 'client-signature-label' &&
              r !== 'client-content-digest'
            )
              na(r, 'no signature member to examine');
        } else {
          this.#signatureParameters(input, receivedAt, index, push);
        }
      }
      this.#contentDigest(request, bodyless, spec?.body === 'none', push);
    }

    // --- Content-Type, Accept, body, application headers
    if (spec === undefined || spec.contentType === undefined)
      na(
        'client-content-type',
        spec === undefined ? 'not a spec endpoint' : 'no Content-Type shown for this endpoint',
      );
    else {
      const ct = values('content-type');
      const media = ct.length === 1 ? mediaTypeOf(ct[0]!) : undefined;
      if (ct.length === 0)
        push(
          'client-content-type',
          'violation',
          spec.requirement,
          `missing "Content-Type": the ${spec.title} request carries ${spec.contentType.media}`,
          { expected: spec.contentType.media, received: '(absent)' },
        );
      else if (ct.length > 1)
        push(
          'client-content-type',
          'violation',
          spec.requirement,
          `"Content-Type" sent on ${ct.length} lines`,
          { expected: spec.contentType.media, received: ct.join(' | ') },
        );
      else if (media === spec.contentType.media)
        push(
          'client-content-type',
          'pass',
          spec.contentType.versionRequirement,
          `Content-Type ${ct[0]!}`,
        );
      else if (media !== undefined && /^application\/vnd\.service\.v[^+]*\+json$/.test(media))
        push(
          'client-content-type',
          'violation',
          spec.contentType.versionRequirement,
          `Content-Type names version "${media}"; the ${spec.title} endpoint uses ${spec.contentType.media}`,
          { expected: spec.contentType.media, received: ct[0]! },
        );
      else
        push(
          'client-content-type',
          'violation',
          spec.requirement,
          `Content-Type "${ct[0]!}" is not ${spec.contentType.media}`,
          { expected: spec.contentType.media, received: ct[0]! },
        );
    }
    const accept = values('accept');
    if (spec === undefined) na('client-accept', 'not a spec endpoint');
    else if (spec.accept === undefined) {
      if (accept.length > 0)
        push(
          'client-accept',
          'observation',
          spec.requirement,
          `Accept "${accept.join(', ')}" sent (the spec shows no Accept for ${spec.title})`,
        );
      else na('client-accept', `no Accept shown for ${spec.title}`);
    } else {
      const ranges = accept
        .join(',')
        .split(',')
        .map(mediaTypeOf)
        .filter((r) => r !== '');
      if (accept.length === 0)
        push(
          'client-accept',
          'violation',
          spec.requirement,
          `missing "Accept": the ${spec.title} request carries Accept ${spec.accept.media}`,
          { expected: spec.accept.media, received: '(absent)' },
        );
      else if (ranges.includes(spec.accept.media))
        push(
          'client-accept',
          'pass',
          spec.accept.versionRequirement,
          `Accept ${accept.join(', ')}`,
        );
      else
        push(
          'client-accept',
          'violation',
          spec.accept.versionRequirement,
          `Accept "${accept.join(', ')}" does not name ${spec.accept.media}`,
          { expected: spec.accept.media, received: accept.join(', ') },
        );
    }
    this.#body(request, spec, push);

    if (spec !== undefined && !spec.applicationHeaders)
      na('client-application-headers', `${spec.title} is called without application headers`);
    else {
      const ids = values('x-application-id');
      const secrets = values('x-application-secret');
      const problems: Array<{ requirement: string; message: string }> = [];
      if (ids.length === 0)
        problems.push({ requirement: 'APP-ID-REQUIRED', message: 'missing "x-application-id"' });
      else if (ids.length > 1)
        problems.push({
          requirement: 'APP-ID-REQUIRED',
          message: `"x-application-id" sent on ${ids.length} lines`,
        });
      else if (ids[0]!.trim() !== credentials.applicationId)
        problems.push({
          requirement: 'SIG-BASE-APPLICATION-HEADERS',
          message: `"x-application-id" is "${ids[0]!}", not the configured application id "${credentials.applicationId}"`,
        });
      if (secrets.length === 0)
        problems.push({
          requirement: 'APP-SECRET-SENT',
          message: 'missing "x-application-secret"',
        });
      else if (secrets.length > 1)
        problems.push({
          requirement: 'APP-SECRET-SENT',
          message: `"x-application-secret" sent on ${secrets.length} lines`,
        });
      else if (!this.#secretMatches(secrets[0]!.trim()))
        problems.push({
          requirement: 'APP-SECRET-SENT',
          message:
            '"x-application-secret" is not the configured application secret (value not shown)',
        });
      if (problems.length === 0)
        push(
          'client-application-headers',
          'pass',
          'APP-ID-REQUIRED',
          'x-application-id and x-application-secret present and as configured',
        );
      else
        for (const p of problems)
          push('client-application-headers', 'violation', p.requirement, p.message);
      const appName = values('x-app-name');
      if (appName.length > 0)
        push(
          'client-application-headers',
          'observation',
          'REFUND-X-APP-NAME',
          `x-app-name "${appName.join(', ')}" sent (the spec shows it in one refund example; its effect is not shown)`,
        );
    }

    // --- the signature itself, last (spec: Server verification order, step 10)
    if (input !== undefined && signature !== undefined)
      this.#signature(request, input, signature, push);
    else if (input !== undefined)
      na('client-signature-verifies', 'no signature bytes under the label');
    return out;
  }

  #signatureParameters(input: SignatureInput, receivedAt: number, index: number, push: Push): void {
    const expected = serviceProfile.componentNames;
    const got = input.components.map((c) => c.serialized);
    const same =
      input.components.length === expected.length &&
      input.components.every((c, i) => c.name === expected[i] && c.params.size === 0);
    if (same)
      push(
        'client-covered-components',
        'pass',
        'SIG-BASE-COMPONENTS-ORDER',
        'the eight components in order',
      );
    else
      push(
        'client-covered-components',
        'violation',
        'SIG-BASE-COMPONENTS-ORDER',
        'the covered components are not the eight of the spec in their fixed order',
        { expected: expected.map((n) => `"${n}"`).join(' '), received: got.join(' ') || '(none)' },
      );

    const names = [...input.params.keys()];
    const unknown = names.filter((n) => !serviceProfile.parameterOrder.includes(n));
    const known = names.filter((n) => serviceProfile.parameterOrder.includes(n));
    const inOrder = known.every(
      (n, i) =>
        i === 0 ||
        serviceProfile.parameterOrder.indexOf(n) >
          serviceProfile.parameterOrder.indexOf(known[i - 1]!),
    );
    if (unknown.length > 0)
      push(
        'client-signature-parameter-order',
        'violation',
        'SIG-INPUT-HEADER',
        `unexpected signature parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}`,
        { expected: serviceProfile.parameterOrder.join(', '), received: names.join(', ') },
      );
    else if (!inOrder)
      push(
        'client-signature-parameter-order',
        'violation',
        'SIG-PROFILE-PARAM-ORDER',
        'signature parameters not in the order created, keyid, alg, nonce',
        { expected: serviceProfile.parameterOrder.join(', '), received: names.join(', ') },
      );
    else
      push(
        'client-signature-parameter-order',
        'pass',
        'SIG-PROFILE-PARAM-ORDER',
        `parameters ${names.join(', ')}`,
      );

    const alg = input.params.get('alg');
    if (alg === undefined)
      push('client-signature-alg', 'violation', 'SIG-PARAM-ALG', 'missing "alg" parameter', {
        expected: 'alg="ed25519"',
        received: '(absent)',
      });
    else if (alg !== serviceProfile.alg)
      push(
        'client-signature-alg',
        'violation',
        'SIG-PARAM-ALG',
        `"alg" is ${JSON.stringify(alg)}, not "ed25519"`,
        { expected: 'ed25519', received: String(alg) },
      );
    else push('client-signature-alg', 'pass', 'SIG-PARAM-ALG', 'alg="ed25519"');

    const keyid = input.params.get('keyid');
    if (typeof keyid !== 'string' || keyid === '')
      push('client-signature-keyid', 'violation', 'SIG-PARAM-KEYID', 'missing "keyid" parameter', {
        expected: this.credentials.keyId,
        received: '(absent)',
      });
    else if (keyid !== this.credentials.keyId)
      push(
        'client-signature-keyid',
        'violation',
        'SIG-PARAM-KEYID',
        `"keyid" is "${keyid}", not the configured key id`,
        { expected: this.credentials.keyId, received: keyid },
      );
    else push('client-signature-keyid', 'pass', 'SIG-PARAM-KEYID', `keyid="${keyid}"`);

    const created = input.params.get('created');
    const now = Math.floor(receivedAt / 1000);
    if (created === undefined)
      push(
        'client-signature-created',
        'violation',
        'SIG-PARAM-CREATED',
        'missing "created" parameter',
        { expected: `created=${now} (the current Unix time in seconds)`, received: '(absent)' },
      );
    else if (typeof created !== 'number' || !Number.isInteger(created))
      push(
        'client-signature-created',
        'violation',
        'SIG-PARAM-CREATED',
        `"created" is ${JSON.stringify(created)}, not an Integer: it is the Unix time in seconds, written without quotes`,
        { expected: `created=${now}`, received: JSON.stringify(created) },
      );
    else {
      const age = now - created;
      const millis =
        created > now * 100 ? ' (it looks like milliseconds: created is Unix time in seconds)' : '';
      const tolerance = this.options.clockSkewToleranceSeconds ?? CLOCK_SKEW_TOLERANCE_SECONDS;
      if (age > serviceProfile.maxAgeSeconds)
        push(
          'client-signature-created',
          'violation',
          'SIG-PARAM-CREATED',
          `"created" is ${age} s before the request arrived; a signature is valid 300 s`,
          { expected: `within 300 s of ${now}`, received: String(created) },
        );
      else if (-age > serviceProfile.maxFutureSkewSeconds)
        push(
          'client-signature-created',
          'violation',
          'SIG-PARAM-CREATED',
          `"created" is ${-age} s after the request arrived${millis}; it is the current Unix time (clock skew above 5 minutes fails)`,
          { expected: `within 300 s of ${now}`, received: String(created) },
        );
      else {
        push(
          'client-signature-created',
          'pass',
          'SIG-PARAM-CREATED',
          `created ${age >= 0 ? `${age} s before` : `${-age} s after`} arrival`,
        );
        if (Math.abs(age) > tolerance) {
          const how =
            age < 0
              ? "ahead of the audit's clock"
              : "behind the audit's clock (or the request was signed long before it was sent)";
          push(
            'client-signature-created',
            'violation',
            'SIG-CLOCK-SYNC',
            `"created" is ${Math.abs(age)} s ${how}: more than the ${tolerance} s payconform tolerates; client clocks should be synchronised, and a skew above 5 minutes fails`,
            { expected: `within ${tolerance} s of ${now}`, received: String(created) },
          );
        }
      }
    }

    const nonce = input.params.get('nonce');
    if (nonce === undefined || nonce === '')
      push(
        'client-signature-nonce',
        'violation',
        'SIG-PARAM-NONCE',
        `${nonce === '' ? 'empty' : 'missing'} "nonce" parameter: it is required on every request`,
        {
          expected: 'nonce="<random, at most 50 characters>"',
          received: nonce === '' ? '""' : '(absent)',
        },
      );
    else if (typeof nonce !== 'string')
      push(
        'client-signature-nonce',
        'violation',
        'SIG-PARAM-NONCE',
        `"nonce" is ${JSON.stringify(nonce)}, not a String: it is written in double quotes`,
        { expected: 'nonce="<random, at most 50 characters>"', received: JSON.stringify(nonce) },
      );
    else {
      const first = this.#nonces.get(nonce);
      if (first === undefined) this.#nonces.set(nonce, index);
      if (nonce.length > serviceProfile.nonceMaxLength)
        push(
          'client-signature-nonce',
          'violation',
          'LIMIT-NONCE',
          `nonce has ${nonce.length} characters; at most 50`,
          { expected: 'at most 50 characters', received: `${nonce.length} characters` },
        );
      else if (first !== undefined)
        push(
          'client-signature-nonce',
          'violation',
          'LIMIT-NONCE',
          `nonce "${nonce}" was already used by request #${first}; every request needs a fresh nonce (the service rejects a replay)`,
          { expected: 'a nonce not used before', received: nonce },
        );
      else
        push(
          'client-signature-nonce',
          'pass',
          'SIG-PARAM-NONCE',
          `fresh nonce of ${nonce.length} characters`,
        );
    }
  }

  /** `noBodyEndpoint`: commit and cancel, POST calls the spec shows with "No body". */
  #contentDigest(
    request: HttpRequest,
    bodyless: boolean,
    noBodyEndpoint: boolean,
    push: Push,
  ): void {
    const digests = getFieldValues(request.headers, 'content-digest');
    if (bodyless) {
      if (digests.length > 0)
        push(
          'client-content-digest',
          'violation',
          'SIG-HEADERS-BODYLESS',
          `a ${request.method} request must not send "Content-Digest"`,
          { expected: '(absent)', received: digests.join(', ') },
        );
      else
        push(
          'client-content-digest',
          'pass',
          'SIG-HEADERS-BODYLESS',
          `no Content-Digest on ${request.method}`,
        );
      return;
    }
    if (digests.length === 0 && noBodyEndpoint && request.body.length === 0) {
      // The table names POST as body-carrying, yet commit and cancel carry no body: a reading that treats them as
      // bodyless is not clearly wrong, but a server following the table by method rejects it.
      push(
        'client-content-digest',
        'violation',
        'SIG-HEADERS-BODY',
        `no "Content-Digest" on a signed ${request.method} without a body: the spec's table requires it for POST; send sha-512=:<digest of the empty body>: so that a server reading the table by method accepts it`,
        { expected: `Content-Digest: ${EMPTY_BODY_DIGEST}`, received: '(absent)', level: 'SHOULD' },
      );
      return;
    }
    if (digests.length === 0) {
      push(
        'client-content-digest',
        'violation',
        'SIG-HEADERS-BODY',
        `missing "Content-Digest": a signed ${request.method} request carries sha-512=:<base64>: over the exact body`,
        { expected: 'Content-Digest: sha-512=:...:', received: '(absent)' },
      );
      return;
    }
    const value = digests.join(', ');
    const parsed = parseContentDigest(value);
    if (!parsed.ok) {
      push('client-content-digest', 'violation', 'DIGEST-SHA512', parsed.message, {
        expected: 'sha-512=:<base64 of 64 bytes>:',
        received: value,
      });
      return;
    }
    if (!parsed.digests.has('sha-512')) {
      push(
        'client-content-digest',
        'violation',
        'DIGEST-SHA512',
        `Content-Digest has no "sha-512" member (found ${[...parsed.digests.keys()].map((k) => `"${k}"`).join(', ')})`,
        { expected: 'sha-512', received: value },
      );
      return;
    }
    const d = diagnoseContentDigest(value, request.body);
    if (d.status === 'matches')
      push(
        'client-content-digest',
        'pass',
        'DIGEST-EXACT-BYTES',
        `sha-512 digest matches the ${request.body.length} body bytes`,
      );
    else
      push(
        'client-content-digest',
        'violation',
        'DIGEST-EXACT-BYTES',
        `Content-Digest does not match the ${request.body.length} bytes received`,
        { notes: d.message, expected: 'the sha-512 of the exact bytes sent', received: value },
      );
  }

  #body(
    request: HttpRequest,
    spec: (typeof endpointSpecs)[ClientEndpoint] | undefined,
    push: Push,
  ): void {
    if (spec === undefined) {
      push('client-request-body', 'n/a', undefined, 'not a spec endpoint');
      return;
    }
    if (spec.body === 'none' || spec.body === 'bodyless') {
      if (request.body.length > 0)
        push(
          'client-request-body',
          'violation',
          spec.requirement,
          `the ${spec.title} request has no body; ${request.body.length} bytes were sent`,
          { expected: 'no body', received: `${request.body.length} bytes` },
        );
      else push('client-request-body', 'pass', spec.requirement, 'no body, as the spec shows');
      return;
    }
    const { kind, requirement, detailsRequirement } = spec.body;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(request.body));
    } catch (error) {
      push(
        'client-request-body',
        'violation',
        requirement,
        `the body is not JSON in UTF-8: ${error instanceof Error ? error.message : String(error)}`,
        { expected: 'a JSON object', received: `${request.body.length} bytes` },
      );
      return;
    }
    const permissive = validatePayload(kind, value);
    if (!permissive.valid) {
      for (const e of permissive.errors.slice(0, 10))
        push('client-request-body', 'violation', requirement, `${e.pointer || '/'}: ${e.message}`, {
          expected: `valid against ${kind}.schema.json`,
        });
      return;
    }
    if (
      kind === 'payout-create-request' &&
      typeof (value as { applicationId?: unknown }).applicationId === 'string' &&
      (value as { applicationId: string }).applicationId !== this.credentials.applicationId
    ) {
      push(
        'client-request-body',
        'violation',
        requirement,
        `applicationId "${(value as { applicationId: string }).applicationId}" in the body is not the configured application`,
        {
          expected: this.credentials.applicationId,
          received: (value as { applicationId: string }).applicationId,
        },
      );
      return;
    }
    const strict = validatePayload(kind, value, { strict: true });
    push('client-request-body', 'pass', requirement, `body valid against ${kind}.schema.json`);
    // Where the spec is silent (required fields, amount as a string, unknown members): recorded, never failed.
    if (!strict.valid)
      for (const e of strict.errors.slice(0, 5))
        push(
          'client-request-body',
          'observation',
          detailsRequirement,
          `${e.pointer || '/'}: ${e.message} (payconform's strict reading; the spec does not show it)`,
        );
  }

  #signature(request: HttpRequest, input: SignatureInput, signature: Uint8Array, push: Push): void {
    const backend = this.options.backend ?? nodeBackend;
    const base = createSignatureBase(
      request,
      input.components,
      input.params,
      serviceProfile.signatureBaseOptions,
    );
    if (!base.ok) {
      push(
        'client-signature-verifies',
        'violation',
        'SIG-SIGN',
        `the signature base cannot be built from the request: ${base.message}`,
      );
      return;
    }
    if (verifySignatureBase(base.base, signature, this.credentials.publicKey, backend)) {
      push(
        'client-signature-verifies',
        'pass',
        'SIG-SIGN',
        'the Ed25519 signature verifies with the configured public key over the base rebuilt from the request (alg ed25519)',
      );
      return;
    }
    this.#diagnoses += 1;
    const full = this.#diagnoses <= (this.options.fullDiagnoses ?? 25);
    const d = diagnoseSignature(request, {
      publicKey: this.credentials.publicKey,
      backend,
      ...(full ? {} : { maxAttempts: 80 }),
    });
    if (d.status === 'found') {
      const expected = d.differences
        .map((x) => `line ${x.line}: ${x.expected ?? '(no line)'}`)
        .join('\n');
      const received = d.differences
        .map((x) => `line ${x.line}: ${x.signed ?? '(no line)'}`)
        .join('\n');
      push(
        'client-signature-verifies',
        'violation',
        d.requirement,
        `the signature does not verify; diagnosis: ${d.message}`,
        {
          expected,
          received,
          notes: `mistake: ${d.mistakes.join(' + ')} (found after ${d.attempts} attempts)`,
        },
      );
    } else {
      push(
        'client-signature-verifies',
        'violation',
        'SIG-SIGN',
        `the Ed25519 signature does not verify with the configured public key; ${d.status === 'verified' ? 'it verifies under the diagnosis (inconsistent state)' : d.message}`,
        { notes: `diagnosis tried ${d.attempts} variants of the base` },
      );
    }
  }
}

type Push = (
  rule: ClientRuleId,
  outcome: RuleOutcome['outcome'],
  requirement: string | undefined,
  message: string,
  extra?: Partial<Pick<RuleOutcome, 'expected' | 'received' | 'notes' | 'level'>>,
) => void;

/** Names the usual encoding mistakes behind a Signature that does not parse (spec, Step 3: base64, 88 characters). */
function base64Hint(value: string): string {
  const m = /=\s*:([^:]*):/.exec(value);
  if (m === null) return '; the signature is a byte sequence between colons, sig1=:<base64>:';
  const text = m[1]!;
  if (/[-_]/.test(text))
    return '; it looks like base64url ("-" or "_"): the spec uses base64 ("+" and "/", "=" padding)';
  if (/^[A-Za-z0-9+/]+$/.test(text) && text.length % 4 !== 0)
    return `; the base64 is not padded (${text.length} characters): a 64-byte signature is 88 characters ending in "=="`;
  if (/^[0-9a-f]+$/i.test(text)) return '; it looks like hex: the spec uses base64';
  return '';
}

/** The origin-form target of an absolute URL string as written. */
function targetOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(url);
  const rest = m ? m[1]! : url;
  return rest === '' ? '/' : rest;
}

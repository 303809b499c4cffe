// The profile's rules, once (spec: Authentication, Steps 1-5, and the Server verification order): every check a
// signed request must pass that reads only the request, in the spec's order. The verifier takes the first finding
// (and adds the steps that need the service's state: nonce store, application, key, signature); the client audit
// reports them all. Every number and name in a message is read from the profile.
import type { HttpRequest } from '../http/message.js';
import { indexCheckedFieldLines, type FieldIndex } from '../signatures/field-values.js';
import {
  parseSignature,
  parseSignatureInput,
  type SignatureInput,
} from '../signatures/signature-fields.js';
import { bodyKindOf } from './body-kind.js';
import { FindingSink, finding, quotedList, type ProfileFinding } from './profile-findings.js';
import { readBodyAndBase } from './profile-body-rules.js';
import { isProfileComponentList } from './profile-signature-base.js';
import { checkSignatureParameters, type Progress } from './profile-parameter-rules.js';
import type { RequestFacts } from './request-facts.js';
import { serviceProfile } from './service-profile.js';
import { defaultVerificationPolicy, type VerificationPolicy } from './verification-policy.js';

export type { Progress } from './profile-parameter-rules.js';
export { checkBodyAndBase } from './profile-body-rules.js';

// Precomputed pieces of the profile, so the verifier's hot path only compares.
const LABEL = serviceProfile.label;
const EXPECTED_COMPONENTS = serviceProfile.componentNames;
const SINGLE_VALUED = serviceProfile.signatureBaseOptions.singleValuedFields ?? [];
const INPUT_FORM = `${LABEL}=(${quotedList(EXPECTED_COMPONENTS)});created=<UNIX_SECONDS>;keyid="<KEY_ID>";alg="${serviceProfile.alg}";nonce="<NONCE>"`;
const SIGNATURE_CHARACTERS = Math.ceil(serviceProfile.signatureLength / 3) * 4;
const SIGNATURE_FORM = `${LABEL}=:<BASE64_SIGNATURE>: (${SIGNATURE_CHARACTERS} characters of padded base64)`;

/**
 * What steps 1 to 4 read from the signature fields, for the steps after them: the facts steps 5 to 12 read
 * (request-facts.ts, also what a pool worker sends back), and what steps 8 to 10 need on the thread that runs them.
 */
export interface SignedFields extends RequestFacts {
  readonly ok: true;
  readonly input: SignatureInput;
  readonly signature: Uint8Array;
}

/** The members the rules examine: the label's, or (reporting every finding) the only one there is. */
export interface SignatureMembers {
  /** Both fields' member labels, Signature-Input's first. */
  readonly labels: readonly string[];
  /** Both fields carry the profile's label. */
  readonly bothHaveLabel: boolean;
  readonly input: SignatureInput | undefined;
  readonly signature: Uint8Array | undefined;
}

/** The requirement of a missing signature header: by the request's kind (spec: the headers' table). */
function headersRequirement(method: string, bodyLength: number): string {
  return bodyKindOf(method, bodyLength) === 'bodyless'
    ? 'SIG-HEADERS-BODYLESS'
    : 'SIG-HEADERS-BODY';
}

/** The requirement a header on several lines breaks. */
const DUPLICATE_REQUIREMENT: Readonly<Record<string, string>> = {
  'x-application-id': 'APP-ID-REQUIRED',
  'x-application-secret': 'APP-SECRET-SENT',
  'content-digest': 'DIGEST-SHA512',
};

/**
 * Step 1: both signature headers, and each covered single-valued header on one line at most. Returns the lines of
 * both signature headers when the steps after it can read them.
 */
function checkSignatureHeaders(
  fields: FieldIndex,
  request: Pick<HttpRequest, 'method' | 'body'>,
  sink: FindingSink,
): { readonly input: readonly string[]; readonly signature: readonly string[] } | undefined {
  const signatureLines = fields.get('signature');
  const inputLines = fields.get('signature-input');
  if (signatureLines === undefined || inputLines === undefined) {
    const requirement = headersRequirement(request.method, request.body.length);
    const both = 'Signature-Input and Signature';
    if (signatureLines === undefined) {
      const f = finding(
        'SIGNATURE_MISSING',
        'missing "Signature" header',
        both,
        '(absent)',
        requirement,
      );
      if (sink.add(f)) return undefined;
    }
    if (inputLines === undefined) {
      const message = 'missing "Signature-Input" header';
      if (sink.add(finding('SIGNATURE_INPUT_MISSING', message, both, '(absent)', requirement)))
        return undefined;
    }
  }
  // An indexed loop: the iterator of a for-of was allocated on every request (a sampling heap profile).
  for (let i = 0; i < SINGLE_VALUED.length; i++) {
    const name = SINGLE_VALUED[i]!;
    const lines = fields.get(name);
    if (lines === undefined || lines.length < 2) continue;
    const message = `header "${name}" appears on ${lines.length} lines`;
    // The count, not the values: one of them may be the application secret.
    const received = `${lines.length} lines`;
    const requirement = DUPLICATE_REQUIREMENT[name];
    const f = finding('HEADER_DUPLICATED', message, 'one line', received, requirement);
    if (sink.add(f)) return undefined;
  }
  if (signatureLines === undefined || inputLines === undefined) return undefined;
  return { input: inputLines, signature: signatureLines };
}

/** Names the usual encoding mistakes behind a Signature that does not parse (spec, Step 3: padded base64). */
function base64Hint(value: string): string {
  const m = /=\s*:([^:]*):/.exec(value);
  if (m === null) return `; the signature is a byte sequence between colons, ${LABEL}=:<base64>:`;
  const text = m[1]!;
  if (/[-_]/.test(text))
    return '; it looks like base64url ("-" or "_"): the spec uses base64 ("+" and "/", "=" padding)';
  if (/^[A-Za-z0-9+/]+$/.test(text) && text.length % 4 !== 0)
    return `; the base64 is not padded (${text.length} characters): a ${serviceProfile.signatureLength}-byte signature is ${SIGNATURE_CHARACTERS} characters ending in "=="`;
  if (/^[0-9a-f]+$/i.test(text)) return '; it looks like hex: the spec uses base64';
  return '';
}

/** Both fields as parsed; a field that does not parse is undefined. */
interface ParsedFields {
  readonly inputs: ReadonlyMap<string, SignatureInput> | undefined;
  readonly signatures: ReadonlyMap<string, Uint8Array> | undefined;
}

/** Step 2's parse of both fields; each field that does not parse is a finding. */
function parseFields(
  lines: { readonly input: readonly string[]; readonly signature: readonly string[] },
  sink: FindingSink,
): ParsedFields | undefined {
  const inputText = lines.input.length === 1 ? lines.input[0]! : lines.input.join(', ');
  const inputs = parseSignatureInput(inputText);
  if (!inputs.ok) {
    const f = finding(
      inputs.code,
      inputs.message,
      INPUT_FORM,
      inputText,
      'SIG-INPUT-HEADER',
      inputs.problem,
    );
    if (sink.add(f)) return undefined;
  }
  const signatureText =
    lines.signature.length === 1 ? lines.signature[0]! : lines.signature.join(', ');
  const signatures = parseSignature(signatureText);
  if (!signatures.ok) {
    const message = `${signatures.message}${base64Hint(signatureText)}`;
    const f = finding(
      signatures.code,
      message,
      SIGNATURE_FORM,
      signatureText,
      'SIG-SIGNATURE-HEADER',
      signatures.problem,
    );
    if (sink.add(f)) return undefined;
  }
  return {
    inputs: inputs.ok ? inputs.value : undefined,
    signatures: signatures.ok ? signatures.value : undefined,
  };
}

/** The first member label other than the profile's, in order. */
function otherLabel(members: ReadonlyMap<string, unknown>): string | undefined {
  for (const key of members.keys()) if (key !== LABEL) return key;
  return undefined;
}

const ONLY_THE_LABEL: readonly string[] = Object.freeze([LABEL]);

/** Both fields' member labels, Signature-Input's first, each once (no closures: the verifier's hot path). */
function labelsOf(
  inputs: ReadonlyMap<string, unknown> | undefined,
  signatures: ReadonlyMap<string, unknown> | undefined,
): readonly string[] {
  if (inputs?.size === 1 && signatures?.size === 1 && inputs.has(LABEL) && signatures.has(LABEL))
    return ONLY_THE_LABEL;
  const labels: string[] = [];
  for (const members of [inputs, signatures])
    for (const label of members?.keys() ?? []) if (!labels.includes(label)) labels.push(label);
  return labels;
}

const labelsText = (labels: readonly string[]): string => labels.join(', ') || '(none)';

/** The label's member; reporting every finding, the only member when the label has none. */
function memberOf<T>(members: ReadonlyMap<string, T>, sink: FindingSink): T | undefined {
  const own = members.get(LABEL);
  if (own !== undefined || sink.all === undefined || members.size !== 1) return own;
  return members.values().next().value;
}

/** Step 2's label rules: the label in both fields, no other label (under `enforce.label`), and the members. */
function checkLabels(
  inputs: ReadonlyMap<string, SignatureInput> | undefined,
  signatures: ReadonlyMap<string, Uint8Array> | undefined,
  policy: VerificationPolicy,
  sink: FindingSink,
): SignatureMembers | undefined {
  const labels = labelsOf(inputs, signatures);
  if (inputs !== undefined && !inputs.has(LABEL)) {
    const f =
      inputs.size === 0
        ? finding(
            'LABEL_UNSUPPORTED',
            `Signature-Input is empty: it carries ${INPUT_FORM}`,
            INPUT_FORM,
            '(empty)',
            'SIG-INPUT-HEADER',
          )
        : finding(
            'LABEL_UNSUPPORTED',
            `the label is always "${LABEL}": Signature-Input has no "${LABEL}" member (found ${quotedList([...inputs.keys()])})`,
            LABEL,
            labelsText(labels),
          );
    if (sink.add(f)) return undefined;
  }
  if (inputs?.has(LABEL) === true && signatures !== undefined && !signatures.has(LABEL)) {
    const f =
      signatures.size === 0
        ? finding(
            'SIGNATURE_MALFORMED',
            `Signature is empty: it carries ${SIGNATURE_FORM}`,
            SIGNATURE_FORM,
            '(empty)',
          )
        : finding(
            'SIGNATURE_MALFORMED',
            `the label is always "${LABEL}": Signature has no "${LABEL}" member (found ${quotedList([...signatures.keys()])})`,
            LABEL,
            labelsText(labels),
            'SIG-LABEL-SIG1',
            'signature-no-label',
          );
    if (sink.add(f)) return undefined;
  }
  const bothHaveLabel = inputs?.has(LABEL) === true && signatures?.has(LABEL) === true;
  if (policy.enforce.label && bothHaveLabel) {
    const other = otherLabel(inputs!) ?? otherLabel(signatures!);
    if (other !== undefined) {
      const message = `unsupported label "${other}" beside "${LABEL}" (the label is always "${LABEL}")`;
      const received = labelsText(labels);
      const f = finding('LABEL_UNSUPPORTED', message, LABEL, received, undefined, 'label-beside');
      if (sink.add(f)) return undefined;
    }
  }
  const input = inputs === undefined ? undefined : memberOf(inputs, sink);
  const signature = signatures === undefined ? undefined : memberOf(signatures, sink);
  return { labels, bothHaveLabel, input, signature };
}

/** Step 2: the signature's length (the member examined). */
function checkSignatureLength(signature: Uint8Array, sink: FindingSink): boolean {
  if (signature.length === serviceProfile.signatureLength) return false;
  const expected = serviceProfile.signatureLength;
  const message = `signature is ${signature.length} bytes, expected ${expected} (${SIGNATURE_CHARACTERS} base64 characters)`;
  const received = `${signature.length} bytes`;
  const length = 'signature-length';
  return sink.add(
    finding('SIGNATURE_MALFORMED', message, `${expected} bytes`, received, undefined, length),
  );
}

/** Step 2: exactly the profile's components, in order, without parameters. */
function checkComponents(input: SignatureInput, sink: FindingSink): boolean {
  if (isProfileComponentList(input.components)) return false;
  const got = input.components.map((c) => c.serialized).join(' ') || 'none';
  const expected = quotedList(EXPECTED_COMPONENTS);
  const message = `covered components must be ${expected}; got ${got}`;
  return sink.add(finding('COMPONENTS_MISMATCH', message, expected, got));
}

/**
 * Steps 1 to 4 (the nonce's form, before the nonce store is asked): the first failure, or what the steps after read.
 * `progress` names the step being run (for the message of an unexpected failure).
 */
export function checkSignatureFields(
  fields: FieldIndex,
  policy: VerificationPolicy,
  now: number,
  progress: Progress,
  request: Pick<HttpRequest, 'method' | 'body'> = NO_BODY,
): ProfileFinding | SignedFields {
  const sink = new FindingSink(false);
  const signed = readSignatureFields(fields, request, policy, now, progress, sink);
  return sink.first ?? signed ?? NOTHING_READ;
}
/** Never given (each way to read nothing records a finding first), but typed rather than asserted. */
const NOTHING_READ = finding(
  'REQUEST_MALFORMED',
  'the signature fields could not be read',
  'Signature-Input and Signature',
  '(unreadable)',
);
const NO_BODY = { method: 'POST', body: new Uint8Array(0) };

/** Steps 1 to 4 into `sink`; what they read when every finding they needed passed. */
function readSignatureFields(
  fields: FieldIndex,
  request: Pick<HttpRequest, 'method' | 'body'>,
  policy: VerificationPolicy,
  now: number,
  progress: Progress,
  sink: FindingSink,
  members?: { value?: SignatureMembers },
): SignedFields | undefined {
  progress.step = 1;
  const lines = checkSignatureHeaders(fields, request, sink);
  if (lines === undefined) return undefined;
  progress.step = 2;
  const parsed = parseFields(lines, sink);
  if (parsed === undefined) return undefined;
  const chosen = checkLabels(parsed.inputs, parsed.signatures, policy, sink);
  if (chosen === undefined) return undefined;
  if (members !== undefined) members.value = chosen;
  const { input, signature } = chosen;
  if (signature !== undefined && checkSignatureLength(signature, sink)) return undefined;
  if (input === undefined) return undefined;
  if (policy.enforce.components && checkComponents(input, sink)) return undefined;
  const params = checkSignatureParameters(input.params, policy, now, progress, sink);
  if (params === undefined || signature === undefined || sink.first !== undefined) return undefined;
  return {
    ok: true,
    input,
    signature,
    created: params.created,
    keyId: params.keyId,
    nonce: params.nonce,
    applicationId: fields.get('x-application-id')?.[0],
    secret: fields.get('x-application-secret')?.[0],
  };
}

/** Every finding of the profile's rules on one request, and what they read. */
export interface ProfileEvaluation {
  /** In the spec's order (steps 1, 2, 3, 4, 8, 9). */
  readonly findings: readonly ProfileFinding[];
  /** The signature members examined, when both fields were there to read. */
  readonly members?: SignatureMembers;
  /** The base built at step 9, when one could be. */
  readonly signatureBase?: string;
}

/**
 * Evaluates `request` against the profile at `now` (Unix seconds) and returns every finding, in the spec's order.
 * Never throws for hostile input. The steps that need the service's state (the nonce store, the application, its key
 * and the signature itself: 4's lookup, 5-7, 10, 11) are not evaluated here.
 */
export function evaluateRequest(
  request: HttpRequest,
  now: number,
  policy: VerificationPolicy = defaultVerificationPolicy,
): ProfileEvaluation {
  const sink = new FindingSink(true);
  const fields = indexCheckedFieldLines(request.headers);
  if (fields === undefined) {
    const message = 'a header line is not a pair of strings';
    return { findings: [finding('REQUEST_MALFORMED', message, 'name, value', 'other')] };
  }
  const progress: Progress = { step: 1 };
  const members: { value?: SignatureMembers } = {};
  readSignatureFields(fields, request, policy, now, progress, sink, members);
  const base = readBodyAndBase(request, fields, members.value?.input, policy, progress, sink);
  return {
    findings: sink.all!,
    ...(members.value !== undefined ? { members: members.value } : {}),
    ...(base !== undefined && base.ok ? { signatureBase: base.base } : {}),
  };
}

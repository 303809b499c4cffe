// The facts every client-audit rule reads about one request, computed once: the endpoint it calls, and where it
// stands on signing (spec: Authentication, Steps 3-5: Signature-Input and Signature, label sig1).
import { getFieldValues, type HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  parseSignature,
  parseSignatureInput,
  type SignatureInput,
} from '../../../src/signatures/signature-fields.js';
import { endpointSpecs, type EndpointMatch, type EndpointSpec } from '../endpoints.js';
import type { RequestFacts, SigningState, SyntaxProblem } from './rule.js';

export function requestFacts(
  request: HttpRequest,
  receivedAt: number,
  index: number,
  match: EndpointMatch,
): RequestFacts {
  const spec =
    match.endpoint !== undefined && !match.wrongMethod ? endpointSpecs[match.endpoint] : undefined;
  const values = (name: string): string[] => getFieldValues(request.headers, name);
  return {
    request,
    receivedAt,
    index,
    match,
    spec,
    bodyless: serviceProfile.bodylessMethods.includes(request.method),
    signing: signingState(values, spec),
    values,
  };
}

function signingState(
  values: (name: string) => string[],
  spec: EndpointSpec | undefined,
): SigningState {
  const inputLines = values('signature-input');
  const signatureLines = values('signature');
  const isSigned = inputLines.length > 0 || signatureLines.length > 0;
  if (!isSigned && spec?.signature !== 'required') return { kind: 'unsigned' };
  const missing = [
    ...(inputLines.length === 0 ? ['Signature-Input'] : []),
    ...(signatureLines.length === 0 ? ['Signature'] : []),
  ];
  if (missing.length > 0) return { kind: 'headers-missing', missing };
  return parsedSignatureHeaders(inputLines, signatureLines);
}

/** Both headers present: parsed, their syntax judged, and the member under the label chosen. */
function parsedSignatureHeaders(inputLines: string[], signatureLines: string[]): SigningState {
  const inputs = parseSignatureInput(inputLines.join(', '));
  const sigs = parseSignature(signatureLines.join(', '));
  // Each malformation rests on the header's form as the spec gives it (Step 4: Signature-Input; Step 5: Signature).
  const syntax: SyntaxProblem[] = [];
  const inputText = `Signature-Input: ${inputLines.join(', ')}`;
  const signatureText = `Signature: ${signatureLines.join(', ')}`;
  if (!inputs.ok)
    syntax.push({ requirement: 'SIG-INPUT-HEADER', message: inputs.message, received: inputText });
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
  if (syntax.length > 0 || !inputs.ok || !sigs.ok) return { kind: 'present', syntax };
  return { kind: 'present', syntax, ...chosenMember(inputs.value, sigs.value) };
}

/** The labels, the first signature that is not 64 bytes, and the member the rules examine: sig1, or the only one. */
function chosenMember(
  inputs: ReadonlyMap<string, SignatureInput>,
  sigs: ReadonlyMap<string, Uint8Array>,
): Omit<Extract<SigningState, { kind: 'present' }>, 'kind' | 'syntax'> {
  const short = [...sigs].find(([, b]) => b.length !== serviceProfile.signatureLength);
  const label = serviceProfile.label;
  const chosen = inputs.has(label) ? label : inputs.size === 1 ? [...inputs.keys()][0] : undefined;
  const input = chosen !== undefined ? inputs.get(chosen) : undefined;
  const signature =
    chosen !== undefined
      ? (sigs.get(chosen) ?? (sigs.size === 1 ? [...sigs.values()][0] : undefined))
      : undefined;
  return {
    labels: [...new Set([...inputs.keys(), ...sigs.keys()])],
    ...(short !== undefined
      ? { shortSignature: { label: short[0], length: short[1].length } }
      : {}),
    bothHaveSig1: inputs.has(label) && sigs.has(label),
    ...(input !== undefined ? { input } : {}),
    ...(signature !== undefined ? { signature } : {}),
  };
}

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

// Reading a signed request as the diagnosis and the forgeries need it (the signature, and the base the service
// builds, as data), and signing a request the way a client that makes one of the table's mistakes signs it: the base
// built wrongly, the request sent rightly.
import type { Ed25519Backend, Ed25519PrivateKey } from '../../src/ed25519/backend.js';
import { nodeBackend } from '../../src/ed25519/node-backend.js';
import { getFieldValues, type HttpRequest } from '../../src/http/message.js';
import { applySignedHeaders } from '../../src/profile/sign-request.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import type { BareItem } from '../../src/structured-fields/structured-fields.js';
import type { ComponentIdentifier } from '../../src/signatures/component-identifier.js';
import { signSignatureBase } from '../../src/signatures/create-signature.js';
import {
  parseSignature,
  parseSignatureInput,
  serializeSignature,
} from '../../src/signatures/signature-fields.js';
import {
  alternatives,
  buildDraft,
  render,
  type Draft,
  type SignatureMistakeId,
} from './signature-mistakes.js';

/** The signature input and bytes under the label, or why there are none. */
function readSignature(
  request: HttpRequest,
  label: string | undefined,
):
  | {
      components: readonly ComponentIdentifier[];
      params: ReadonlyMap<string, BareItem>;
      signature: Uint8Array;
    }
  | string {
  const inputText = getFieldValues(request.headers, 'signature-input').join(', ');
  const sigText = getFieldValues(request.headers, 'signature').join(', ');
  if (inputText === '' || sigText === '')
    return 'the request has no Signature-Input or no Signature';
  const inputs = parseSignatureInput(inputText);
  if (!inputs.ok) return inputs.message;
  const sigs = parseSignature(sigText);
  if (!sigs.ok) return sigs.message;
  const wanted = label ?? serviceProfile.label;
  const chosen = inputs.value.has(wanted)
    ? wanted
    : inputs.value.size === 1
      ? [...inputs.value.keys()][0]!
      : undefined;
  if (chosen === undefined) return `Signature-Input has no "${wanted}" member`;
  const input = inputs.value.get(chosen)!;
  const signature =
    sigs.value.get(chosen) ?? (sigs.value.size === 1 ? [...sigs.value.values()][0] : undefined);
  if (signature === undefined) return `Signature has no "${chosen}" member`;
  if (signature.length !== 64) return `the signature is ${signature.length} bytes, not 64`;
  return { components: input.components, params: input.params, signature };
}

/** What the diagnosis starts from: the signature and the base the service builds, as data and as text. */
export interface Subject {
  readonly components: readonly ComponentIdentifier[];
  readonly signature: Uint8Array;
  readonly draft: Draft;
  readonly expected: string;
}

/** Reads the signature and builds the expected base, or says why the request cannot be read. */
export function readSubject(request: HttpRequest, label: string | undefined): Subject | string {
  let sig: ReturnType<typeof readSignature>;
  try {
    sig = readSignature(request, label);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof sig === 'string') return sig;
  const draft = buildDraft(request, sig.components, sig.params);
  if (typeof draft === 'string') return draft;
  const expected = render(draft, sig.components);
  if (expected === undefined) return 'the signature parameters cannot be serialised';
  return { components: sig.components, signature: sig.signature, draft, expected };
}

/** A request signed with one of the table's mistakes, or why the mistake changes nothing in this request's base. */
export type MistakenSignature =
  | {
      readonly ok: true;
      readonly request: HttpRequest;
      /** The way the mistake was made (the table's detail), when it has several. */
      readonly detail?: string;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * `signed` (a correctly signed request) signed again as a client making `mistake` signs it: the base the mistake's
 * first way builds from the base the service builds, signed with `privateKey`; only the Signature field changes, so
 * the request is sent rightly. `ok: false` where the mistake does not apply to this request (e.g. no query to leave
 * out) or the request cannot be read.
 */
export function signWithMistake(
  signed: HttpRequest,
  mistake: SignatureMistakeId,
  privateKey: Ed25519PrivateKey,
  backend: Ed25519Backend = nodeBackend,
): MistakenSignature {
  const subject = readSubject(signed, undefined);
  if (typeof subject === 'string') return { ok: false, reason: subject };
  const way = alternatives(subject.draft, signed).find((a) => a.mistake === mistake);
  if (way === undefined)
    return { ok: false, reason: 'the mistake leaves the base of this request unchanged' };
  const base = render(way.apply(subject.draft), subject.components);
  if (base === undefined || base === subject.expected)
    return { ok: false, reason: 'the mistake leaves the base of this request unchanged' };
  const signature = signSignatureBase(base, privateKey, backend);
  const request = applySignedHeaders(signed, {
    signature: serializeSignature(new Map([[serviceProfile.label, signature]])),
  });
  return { ok: true, request, ...(way.detail !== undefined ? { detail: way.detail } : {}) };
}

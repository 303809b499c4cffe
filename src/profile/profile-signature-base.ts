// The profile's signature base (spec, Authentication, Step 2) from a template precomputed once: the eight line
// prefixes are fixed, so a request in the ordinary form needs only its values filled in. Anything out of the ordinary
// (an unusable URI, CR/LF/NUL in a value, a field on several lines, non-ASCII) is handed to the generic RFC 9421
// engine, so the result, error or not, is always exactly createSignatureBase's (a property test checks this).
import type { HttpRequest } from '../http/message.js';
import type { ComponentIdentifier } from '../signatures/component-identifier.js';
import type { FieldIndex } from '../signatures/field-values.js';
import {
  createSignatureBase,
  type PreparedSignatureParams,
  type SignatureBaseResult,
} from '../signatures/signature-base.js';
import { normalizeAuthority, parseTargetUri } from '../signatures/target-uri.js';
import { serviceProfile } from './service-profile.js';

const OPTIONS = serviceProfile.signatureBaseOptions;
const COMPONENTS = serviceProfile.coveredComponents;

/** The components' line prefixes (`"@method": ` ...), in order; the profile covers three derived components, then fields. */
const PREFIX = COMPONENTS.map((c) => `${c.serialized}: `);
const FIELD_NAMES = COMPONENTS.slice(3).map((c) => c.name);
const SIGNATURE_PARAMS_PREFIX = '"@signature-params": ';
const NO_LINES: readonly string[] = [];

const PROFILE_NAMES = serviceProfile.componentNames;

/** Exactly the profile's covered components, in order, without parameters. */
export function isProfileComponentList(received: readonly ComponentIdentifier[]): boolean {
  if (received === lastProfileList) return true; // the parser hands out one frozen list per distinct text
  if (received.length !== PROFILE_NAMES.length) return false;
  for (let i = 0; i < received.length; i++) {
    if (received[i]!.name !== PROFILE_NAMES[i] || received[i]!.params.size !== 0) return false;
  }
  if (Object.isFrozen(received)) lastProfileList = received;
  return true;
}
let lastProfileList: readonly ComponentIdentifier[] | undefined;

/** CR, LF and NUL may not appear in a value (the generic engine's rule, RFC 9110 §5.5). */
const FORBIDDEN = /[\r\n\0]/;

// The template is written for exactly this shape; fail at load time rather than build a wrong base.
if (
  COMPONENTS.length !== 8 ||
  COMPONENTS.some((c) => c.params.size !== 0) ||
  COMPONENTS.slice(0, 3)
    .map((c) => c.name)
    .join(' ') !== '@method @path @authority' ||
  FIELD_NAMES.some((name) => name.startsWith('@')) ||
  OPTIONS.pathValue !== 'path-and-query' ||
  OPTIONS.missingField !== 'empty'
) {
  throw new Error(
    'profile-signature-base: the service profile no longer has the shape this template was written for',
  );
}

/** A signature base, with its bytes when the template built it (ASCII: the UTF-8 encoding was made to check that). */
export type ProfileSignatureBaseResult = SignatureBaseResult & { readonly bytes?: Uint8Array };

/**
 * The signature base of a request whose covered components are exactly the profile's, from the index of its field
 * lines and the already-serialised `@signature-params` value (the parsed Signature-Input member).
 */
export function createProfileSignatureBase(
  request: HttpRequest,
  fields: FieldIndex,
  prepared: PreparedSignatureParams,
): ProfileSignatureBaseResult {
  const uri = parseTargetUri(request.url);
  if (uri.ok) {
    const parts = uri.value;
    const method = request.method;
    const path = parts.query === undefined ? parts.path : `${parts.path}?${parts.query}`;
    const authority = normalizeAuthority(parts, OPTIONS.authorityPorts);
    let regular = !FORBIDDEN.test(method) && !FORBIDDEN.test(path) && !FORBIDDEN.test(authority);
    let base = `${PREFIX[0]}${method}\n${PREFIX[1]}${path}\n${PREFIX[2]}${authority}\n`;
    for (let i = 0; regular && i < FIELD_NAMES.length; i++) {
      const lines = fields.get(FIELD_NAMES[i]!) ?? NO_LINES;
      if (lines.length > 1) regular = false;
      else if (lines.length === 0)
        base += `${PREFIX[i + 3]}\n`; // missing field: empty value (profile deviation)
      else if (FORBIDDEN.test(lines[0]!)) regular = false;
      else base += `${PREFIX[i + 3]}${lines[0]}\n`;
    }
    if (regular) {
      base += SIGNATURE_PARAMS_PREFIX + prepared.signatureParams;
      // ASCII exactly when no UTF-16 unit needs more than one UTF-8 byte; the bytes are what step 10 verifies.
      const bytes = Buffer.from(base, 'utf8');
      if (bytes.length === base.length)
        return { ok: true, base, signatureParams: prepared.signatureParams, bytes };
    }
  }
  return createSignatureBase(request, COMPONENTS, prepared, OPTIONS, fields);
}

// Spec, Authentication, "Headers added to a signed request": a signed request is body-carrying (Content-Digest
// required) or bodyless (Content-Digest must not be sent). One rule for the signer, the verifier and the client audit.
import { serviceProfile } from './service-profile.js';

export type BodyKind = 'body-carrying' | 'bodyless';

/**
 * The table's columns are kinds of request, "Body-carrying request (POST, PUT, PATCH)" and "Bodyless request (GET,
 * DELETE)": the methods are the kinds' examples. A method the table does not name is placed by what the request is:
 * with body bytes it is body-carrying (Step 1 digests "the exact body bytes"), without them it is bodyless.
 */
export function bodyKindOf(method: string, bodyLength: number): BodyKind {
  if (serviceProfile.bodyMethods.includes(method)) return 'body-carrying';
  if (serviceProfile.bodylessMethods.includes(method)) return 'bodyless';
  return bodyLength > 0 ? 'body-carrying' : 'bodyless';
}

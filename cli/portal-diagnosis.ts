// The portal's signature diagnosis: the client audit's engine (conformance/signatures/diagnose-signature.ts) over each public key
// of the application, told as text. Wired here because server/ does not import conformance/.
import { diagnoseSignature } from '../conformance/signatures/diagnose-signature.js';
import type { Ed25519PublicKey } from '../src/ed25519/backend.js';
import type { HttpRequest } from '../src/http/message.js';

export function diagnoseForPortal(
  request: HttpRequest,
  publicKeys: ReadonlyMap<string, Ed25519PublicKey>,
): string {
  const told: string[] = [];
  for (const [keyId, publicKey] of publicKeys) {
    const d = diagnoseSignature(request, { publicKey });
    if (d.status === 'verified')
      return `the signature verifies with key "${keyId}" over the base the service builds: the request was rejected for another reason (see the code)`;
    if (d.status === 'found') {
      const lines = d.differences.map(
        (x) =>
          `  line ${x.line}: service builds ${x.expected ?? '(no line)'}\n           client signed ${x.signed ?? '(no line)'}`,
      );
      return [
        `key "${keyId}": ${d.message}`,
        `(requirement ${d.requirement}; mistake: ${d.mistakes.join(' + ')}; found after ${d.attempts} attempts)`,
        ...lines,
      ].join('\n');
    }
    told.push(`key "${keyId}": ${d.message}`);
  }
  return told.length > 0 ? told.join('\n') : 'the application has no public key';
}

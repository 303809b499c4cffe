// The one rule for an application secret, checked once at start by every command and by the reference service:
// the secret travels as the x-application-secret header and as a line of the signature base, byte for byte.

/**
 * Why `secret` cannot be used as an application secret, or undefined when it can. The secret must be non-empty
 * visible ASCII (0x21-0x7E, spaces allowed inside): HTTP strips leading and trailing whitespace from a field value,
 * so a secret with either would be signed with it and received without it; a header value carries no control
 * characters, and non-ASCII text has no single byte form every HTTP stack sends alike. The message never quotes
 * the secret, only positions (1-based).
 */
export function applicationSecretProblem(secret: string): string | undefined {
  if (typeof secret !== 'string') return 'is not a string';
  if (secret.length === 0) return 'is empty';
  if (/^\s|\s$/.test(secret)) {
    return 'has leading or trailing whitespace (HTTP strips it from the x-application-secret header, so the secret signed and the secret received would differ); remove it';
  }
  for (let i = 0; i < secret.length; i++) {
    const code = secret.charCodeAt(i);
    if (code < 0x20 || code === 0x7f)
      return `has a control character at position ${i + 1} (a header value must be visible ASCII, 0x21-0x7E, and spaces)`;
    if (code > 0x7f)
      return `has a non-ASCII character at position ${i + 1} (a header value must be visible ASCII, 0x21-0x7E, and spaces)`;
  }
  return undefined;
}

/**
 * The received application secret against the configured one, in time that depends only on the configured secret's
 * length: every code unit is compared whatever the received text is (no early exit, no branch on secret data), so the
 * time taken never tells where a guess first differs. Strings are compared as written (no hashing, which would map
 * unequal lone surrogates to the same bytes).
 */
export function applicationSecretMatches(received: string, expected: string): boolean {
  const length = expected.length;
  const receivedLength = received.length;
  let difference = receivedLength ^ length;
  for (let i = 0; i < length; i++)
    difference |= (i < receivedLength ? received.charCodeAt(i) : 0) ^ expected.charCodeAt(i);
  return difference === 0;
}

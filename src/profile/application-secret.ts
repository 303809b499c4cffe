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
    if (code < 0x20 || code === 0x7f) return `has a control character at position ${i + 1} (a header value must be visible ASCII, 0x21-0x7E, and spaces)`;
    if (code > 0x7f) return `has a non-ASCII character at position ${i + 1} (a header value must be visible ASCII, 0x21-0x7E, and spaces)`;
  }
  return undefined;
}

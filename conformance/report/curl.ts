// Reproduce commands: a curl invocation that sends the recorded request again, secrets as environment references.
import type { RecordedRequest } from '../run/check.js';
import { createRedactor, SECRET_ENV, type Redactor } from './redact.js';

/** Quotes text for a POSIX shell (single quotes; embedded quotes closed and escaped). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A shell word for text that may contain secrets: literal parts single-quoted, secrets as "$PAYCONFORM_...". */
function shellWord(text: string, redactor: Redactor): string {
  const parts = redactor.segments(text);
  return (
    parts
      .map((p) => ('secret' in p ? `"$${SECRET_ENV[p.secret]}"` : shellQuote(p.text)))
      .join('') || "''"
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A curl command that re-sends the request as recorded: `--path-as-is` keeps the path unnormalised, curl's own
 * `User-Agent`, `Accept` and form `Content-Type` are suppressed when the request did not carry them, and the body goes
 * through `--data-binary` (from `printf` for non-text bytes). A signed request stays valid only 300 s after `created`,
 * and its nonce is single-use, so replaying it later is itself a replay.
 */
export function curlFor(request: RecordedRequest, redactor: Redactor = createRedactor()): string {
  const words = ['curl', '-sS', '-i', '--path-as-is', '-X', shellQuote(request.method)];
  const sent = new Set(request.headers.map(([n]) => n.toLowerCase()));
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'content-length' || lower === 'connection') {
      // curl derives these from the URL and the body; an explicit value that differs is kept (it is the fault under test).
      if (lower === 'host' && value === new URL(request.url).host) continue;
      // (curl sends no Content-Length for a request without data, so an empty body's `content-length: 0` is kept.)
      if (
        lower === 'content-length' &&
        request.body.length > 0 &&
        value === String(request.body.length)
      )
        continue;
      if (lower === 'connection') continue;
    }
    words.push('-H', shellWord(`${name}: ${value}`, redactor));
  }
  for (const suppressed of ['user-agent', 'accept'])
    if (!sent.has(suppressed))
      words.push('-H', shellQuote(`${suppressed === 'accept' ? 'Accept' : 'User-Agent'}:`));
  let prefix = '';
  if (request.body.length > 0) {
    if (!sent.has('content-type')) words.push('-H', shellQuote('Content-Type:'));
    let text: string | undefined;
    try {
      text = utf8.decode(request.body);
    } catch {
      text = undefined;
    }
    if (text !== undefined && !text.includes('\0')) {
      words.push('--data-binary', shellWord(text, redactor));
    } else {
      const escaped = Array.from(request.body, (b) => `\\0${b.toString(8).padStart(3, '0')}`).join(
        '',
      );
      prefix = `printf '%b' ${shellQuote(escaped)} | `;
      words.push('--data-binary', '@-');
    }
  }
  words.push(shellWord(request.url, redactor));
  return prefix + words.join(' ');
}

// docs/security.md's masking promise, by property: for an application secret drawn from the allowed alphabet
// (src/profile/application-secret.ts: visible ASCII, spaces inside), whatever mixture of encodings a hostile target
// echoes it in (HTML/XML entities decimal, hex and named, JSON and \u escapes, percent-encoding, `+` for a space,
// escaped twice), in other letter case, as hex or base64, cut short (8+ characters, with or without an ellipsis),
// broken across lines or fields, and wherever it echoes it (body, header, status text, redirect target), no output of
// the engine (console, JSON, JUnit, HTML) holds it. Budget: 150 runs, about 5 s.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { violation, type Check } from '../conformance/check.js';
import { runChecks } from '../conformance/engine.js';
import { createRedactor, MIN_PIECE, REDACTED } from '../conformance/redact.js';
import { createConsoleReporter } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { applicationSecretProblem } from '../src/profile/application-secret.js';

/** A secret the one rule accepts: visible ASCII and inner spaces, 8 to 40 characters. */
export const secretArb = fc
  .array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 8, maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes))
  .filter((s) => applicationSecretProblem(s) === undefined);

const NAMED: Readonly<Record<string, string>> = {
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  '"': 'quot',
  "'": 'apos',
};
const hex2 = (c: string, upper: boolean): string => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return upper ? h.toUpperCase() : h;
};

/** One character in one of the encodings the security notes list (choice 0-7, upper picks hex digit case). */
export function encodeChar(c: string, choice: number, upper: boolean): string {
  const code = c.charCodeAt(0);
  switch (choice) {
    case 1:
      return `&#${upper ? '0' : ''}${code};`;
    case 2:
      return `&#${upper ? 'X' : 'x'}${hex2(c, upper)};`;
    case 3:
      return NAMED[c] !== undefined ? `&${NAMED[c]};` : c;
    case 4:
      return `\\u00${hex2(c, upper)}`;
    case 5:
      return `%${hex2(c, upper)}`;
    case 6:
      return c === ' ' ? '+' : encodeURIComponent(c);
    case 7:
      return c === '"' || c === '\\' || c === '/' ? `\\${c}` : c;
    default:
      return c;
  }
}

/** The whole echo escaped once more (the second level of "escaped twice"). */
const TWICE: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => s.replace(/&/g, '&amp;'),
  (s) => encodeURIComponent(s),
  (s) => JSON.stringify(s).slice(1, -1),
];

/** The forms a target may echo: each is the list of pieces it puts in separate fields (most: one piece). */
export const echoArb = (
  secret: string,
): fc.Arbitrary<{ readonly kind: string; readonly pieces: readonly string[] }> =>
  fc.oneof(
    fc
      .tuple(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.boolean()), {
          minLength: secret.length,
          maxLength: secret.length,
        }),
        fc.integer({ min: 0, max: TWICE.length - 1 }),
      )
      .map(([choices, twice]) => ({
        kind: 'mixture',
        pieces: [TWICE[twice]!([...secret].map((c, i) => encodeChar(c, ...choices[i]!)).join(''))],
      })),
    fc.constantFrom(
      { kind: 'upper', pieces: [secret.toUpperCase()] },
      { kind: 'lower', pieces: [secret.toLowerCase()] },
      { kind: 'hex', pieces: [Buffer.from(secret).toString('hex')] },
      { kind: 'HEX', pieces: [Buffer.from(secret).toString('hex').toUpperCase()] },
      { kind: 'base64', pieces: [Buffer.from(secret).toString('base64')] },
      { kind: 'basic', pieces: [`Basic ${Buffer.from(`app-1:${secret}`).toString('base64')}`] },
    ),
    fc
      .tuple(fc.integer({ min: MIN_PIECE, max: secret.length }), fc.constantFrom('', '…', '...'))
      .map(([n, tail]) => ({ kind: 'prefix', pieces: [secret.slice(0, n) + tail] })),
    fc
      .array(fc.integer({ min: 1, max: secret.length - 1 }), { minLength: 1, maxLength: 3 })
      .chain((cuts) =>
        fc.constantFrom('\n', '\r\n').map((eol) => {
          const at = [...new Set(cuts)].sort((a, b) => a - b);
          const parts = at.map((c, i) => secret.slice(i === 0 ? 0 : at[i - 1], c));
          return { kind: 'lines', pieces: [[...parts, secret.slice(at.at(-1))].join(eol)] };
        }),
      ),
    // Two fields, each piece long enough to be masked on its own (shorter pieces are not: docs/security.md).
    secret.length >= 2 * MIN_PIECE
      ? fc
          .integer({ min: MIN_PIECE, max: secret.length - MIN_PIECE })
          .map((cut) => ({ kind: 'fields', pieces: [secret.slice(0, cut), secret.slice(cut)] }))
      : fc.constant({ kind: 'whole', pieces: [secret] }),
  );

export const PLACES = ['body', 'header', 'status text', 'redirect target'] as const;

/** Undoes every escape there is, once: an oracle written apart from conformance/redact.ts. */
function decodeAll(text: string): string {
  return (
    text
      .replace(/&#[xX]([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
      .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
      .replace(
        /&(amp|lt|gt|quot|apos);/g,
        (_m, n: string) => Object.entries(NAMED).find(([, v]) => v === n)![0],
      )
      // JSON escapes in one scan from the left, as a JSON parser reads them.
      .replace(/\\(u[0-9a-fA-F]{4}|["\\/])/g, (_m, e: string) =>
        e.length === 1 ? e : String.fromCharCode(parseInt(e.slice(1), 16)),
      )
      .replace(/%([0-7][0-9a-fA-F])/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
  );
}

/** What of the secret an output still shows (empty: nothing), judged at every level of decoding. */
export function leaksIn(output: string, secret: string): string[] {
  const found: string[] = [];
  const plus = (s: string): string => s.replace(/\+/g, ' ');
  const hex = Buffer.from(secret).toString('hex');
  const b64 = Buffer.from(secret).toString('base64');
  let text = output;
  for (let level = 0; level < 5; level++) {
    const flat = plus(text.replace(/\\r|\\n|[\r\n]/g, ''));
    if (flat.toLowerCase().includes(plus(secret).toLowerCase()))
      found.push(`whole (level ${level})`);
    for (let i = 0; i + MIN_PIECE <= secret.length; i++)
      if (flat.includes(plus(secret.slice(i, i + MIN_PIECE)))) {
        found.push(`piece at ${i} (level ${level})`);
        break;
      }
    if (flat.toLowerCase().includes(hex.slice(0, 2 * MIN_PIECE))) found.push('hex');
    // Base64 and hex pieces that carry MIN_PIECE characters of the secret.
    if (flat.includes(b64.slice(0, Math.ceil((4 * MIN_PIECE) / 3)))) found.push('base64');
    text = decodeAll(text);
  }
  if (output.includes(Buffer.from(`app-1:${secret}`).toString('base64').slice(8, 19)))
    found.push('base64 in Basic');
  return found;
}

/** A check whose target echoed the secret where `place` says; it quotes the body the way checks do (cut, "…"). */
function echoingCheck(pieces: readonly string[], place: (typeof PLACES)[number]): Check<null> {
  const echo = pieces.join('\n');
  const headers: Array<[string, string]> = [['content-type', 'text/html']];
  if (place === 'header') pieces.forEach((p, i) => headers.push([`x-echo-${i}`, p]));
  if (place === 'redirect target')
    pieces.forEach((p) => headers.push(['location', `/login?secret=${p}&next=%2F`]));
  const body = place === 'body' ? `<p>bad secret: ${echo}</p>` : '<p>denied</p>';
  return {
    id: 'echoing-target',
    title: 'a target that echoes the secret',
    area: 'signing',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET'],
    level: 'MUST',
    appliesTo: 'server',
    run: async () => [
      violation(`answered 200 to a wrong secret: ${body.slice(0, 40)}…`, {
        received: place === 'status text' ? `200 ${pieces.join(' ')}` : body,
        evidence: {
          response: {
            status: 200,
            ...(place === 'status text' ? { statusText: pieces.join(' ') } : {}),
            headers,
            body: new TextEncoder().encode(body),
          },
          notes: `echo: ${pieces.join(' | ')}`,
        },
      }),
    ],
  };
}

/** Every string in a JSON document, one a line. */
function jsonStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(jsonStrings);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => [k, ...jsonStrings(v)]);
  return [];
}

/** What a reader of each output sees: JSON strings decoded, XML and HTML entities undone once (the report's own). */
export function asRead(format: string, text: string): string {
  if (format === 'json') return jsonStrings(JSON.parse(text)).join('\n');
  if (format === 'junit' || format === 'html')
    return text
      .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
      .replace(
        /&(lt|gt|quot|apos);/g,
        (_m, n: string) => Object.entries(NAMED).find(([, v]) => v === n)![0],
      )
      .replace(/&amp;/g, '&');
  return text;
}

/** The engine's run and every report format, as text. */
export async function allOutputs(
  check: Check<null>,
  secret: string | undefined,
): Promise<Record<string, string>> {
  let consoleOut = '';
  const summary = await runChecks({
    checks: [check],
    context: null,
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: 'test',
    redactor: createRedactor({ applicationSecret: secret }),
    subscribers: [
      createConsoleReporter({ stream: { write: (t: string) => (consoleOut += t) }, verbose: true }),
    ],
  });
  return {
    console: consoleOut,
    json: renderJsonReport(summary),
    junit: renderJunitReport(summary),
    html: renderHtmlReport(summary),
  };
}

describe('docs/security.md: the application secret is masked in every encoding, in every output', () => {
  it('the oracle sees each form when nothing is masked (so the property below can fail)', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb.chain((s) => fc.tuple(fc.constant(s), echoArb(s), fc.constantFrom(...PLACES))),
        async ([secret, echo, where]) => {
          const place = echo.kind === 'lines' ? 'body' : where; // only a body holds a line break
          const outputs = await allOutputs(echoingCheck(echo.pieces, place), undefined);
          // The JSON report as read (the console indents continuation lines, which this oracle does not undo).
          const json = asRead('json', outputs['json']!);
          expect(leaksIn(json, secret).length, echo.kind).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('no output shows the secret, whatever the mixture and wherever the target echoes it', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb.chain((s) => fc.tuple(fc.constant(s), echoArb(s), fc.constantFrom(...PLACES))),
        async ([secret, echo, where]) => {
          const place = echo.kind === 'lines' ? 'body' : where;
          const outputs = await allOutputs(echoingCheck(echo.pieces, place), secret);
          for (const [name, text] of Object.entries(outputs)) {
            expect(
              leaksIn(asRead(name, text), secret),
              `${name}: ${echo.kind} in ${place}`,
            ).toEqual([]);
            expect(leaksIn(text, secret), `${name} as written`).toEqual([]);
            expect(text, name).toContain(REDACTED);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a piece shorter than the stated length is not masked (the documented limit)', () => {
    const secret = 'Zq8&<"w\'/%+x Secr3t-9';
    const redactor = createRedactor({ applicationSecret: secret });
    const short = secret.slice(0, MIN_PIECE - 1);
    expect(redactor.redactText(`cut: ${short}…`)).toBe(`cut: ${short}…`);
    expect(redactor.redactText(`cut: ${secret.slice(0, MIN_PIECE)}…`)).toBe(`cut: ${REDACTED}…`);
  });
});

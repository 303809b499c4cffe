// docs/security.md's masking promise, by property: for an application secret drawn from the allowed alphabet
// (src/profile/application-secret.ts: visible ASCII, spaces inside), whatever mixture of encodings a hostile target
// echoes it in (HTML/XML entities decimal, hex and named, JSON and \u escapes, percent-encoding, `+` for a space,
// escaped twice; any mixture a reader can decode one level at a time: readsBack), in other letter case, as hex or
// base64, cut short (8+ characters, with or without an ellipsis), broken across lines or fields, and wherever it
// echoes it (body, header, status text, redirect target), no output of the engine (console, JSON, JUnit, HTML) holds
// it. Budget: 150 runs, about 5 s.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { violation, type Check } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { createRedactor, MIN_PIECE, REDACTED } from '../conformance/report/redact.js';
import { createConsoleReporter } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { applicationSecretProblem } from '../src/profile/application-secret.js';
import { asRead, encodeMixture, leaksIn, readsBack } from './fixtures/secret-leaks.js';

/** A secret the one rule accepts: visible ASCII and inner spaces, 8 to 40 characters. */
export const secretArb = fc
  .array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 8, maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes))
  .filter((s) => applicationSecretProblem(s) === undefined);

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
        pieces: [TWICE[twice]!(encodeMixture(secret, choices))],
      }))
      .filter(({ pieces }) => readsBack(pieces[0]!, secret)),
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

  // Found by CI (seed -806079393): a secret holding the text `\r` was missed by the oracle, which skipped `\r` in
  // the output as a line break but not in the secret; base64 holding `+` was found only through the Basic form.
  it('the oracle finds a secret that holds the text \\r, and base64 that holds +; the engine masks both', async () => {
    const secret = '\\r       !';
    const prefix = secret.slice(0, MIN_PIECE);
    expect(leaksIn(`<p>bad secret: ${prefix}</p>`, secret)).not.toEqual([]);
    expect(leaksIn(`x ${Buffer.from('>>>>>>>>ab').toString('base64')}`, '>>>>>>>>ab')).toContain(
      'base64',
    );
    expect(leaksIn('ab\ncd\r\nefgh', 'abcdefgh')).toContain('whole (level 0)');
    expect(leaksIn('ab\\ncd\\r\\nefgh', 'abcdefgh')).toContain('whole (level 0)');
    expect(leaksIn('{"indent": "        "}', secret)).toEqual([]);
    for (const place of PLACES) {
      const outputs = await allOutputs(echoingCheck([prefix], place), secret);
      for (const [name, text] of Object.entries(outputs))
        expect(leaksIn(asRead(name, text), secret), `${name} in ${place}`).toEqual([]);
    }
  });

  it('a piece shorter than the stated length is not masked (the documented limit)', () => {
    const secret = 'Zq8&<"w\'/%+x Secr3t-9';
    const redactor = createRedactor({ applicationSecret: secret });
    const short = secret.slice(0, MIN_PIECE - 1);
    expect(redactor.redactText(`cut: ${short}…`)).toBe(`cut: ${short}…`);
    expect(redactor.redactText(`cut: ${secret.slice(0, MIN_PIECE)}…`)).toBe(`cut: ${REDACTED}…`);
  });
});

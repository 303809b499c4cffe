// Output safe for where it is shown (docs/security.md, "Output safe for where it is shown"): hostile
// strings in every field a target or a file controls, rendered by a CommonMark renderer (markdown-it, with raw HTML
// and linkify on, as GitHub renders a comment), make no link, image, heading, HTML or mention-looking text outside
// code, and never break a table row; printed for a terminal (console summary and progress, diff text, attest verify,
// usage errors, an audit's own messages) they carry no control character but the reporter's own colours and line breaks.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../conformance/report/diff.js';
import { runChecks } from '../conformance/run/engine.js';
import { createConsoleReporter, renderConsoleSummary } from '../conformance/reporters/console.js';
import { toJsonReport } from '../conformance/reporters/json.js';
import { htmlEscape } from '../conformance/reporters/html.js';
import { xmlEscape } from '../conformance/reporters/junit.js';
import { markdownCode } from '../conformance/reporters/markdown-safe.js';
import { renderMarkdownReport } from '../conformance/reporters/markdown.js';
import type { RunEvent } from '../conformance/run/events.js';
import type { RunSummary } from '../conformance/run/result.js';
import { oneCheckPerOutcome } from './fixtures/reporter-checks.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';

/** What an attacker would write, each carrying "evil" so that it can be told from the report's own words. */
const HOSTILE: readonly string[] = [
  'evil` **bold** `',
  'evil``` ```',
  '`evil`',
  '<img src=x onerror=alert(1)> evil',
  '<script>alert("evil")</script>',
  '![evil](https://evil.example/x.png)',
  '[evil](https://evil.example/)',
  '<https://evil.example/>',
  'https://evil.example/path',
  'www.evil.example',
  'evil@evil.example',
  '@evil-octocat hello',
  'evil\n# heading',
  'evil\n\n## heading\n\n- item',
  'evil\r\n<details open>',
  '| evil | cell | row |',
  'evil \\| escaped',
  '#1234 evil GH-12 evil/repo#3',
  ':evil: :+1: evil',
  'evil ~~~\n~~~',
  '[evil]: https://evil.example/ref',
  '&lt;evil&gt; &#64;evil',
  '\u001b[2J\u001b[Hverified: evil',
  'evil\u0007\u0008\u007f\u009b31m',
  'evil\u202egnp.exe',
  'evil\u2028line\u2029para',
  '<!-- evil -->',
  '\\`evil\\`',
];

/** Member names whose values are enumerations the reporters branch on (kept, so the run stays a run). */
const ENUM_MEMBERS = new Set([
  'outcome',
  'level',
  'role',
  'appliesTo',
  'status',
  'unexercised',
  'class',
  'before',
  'after',
  'change',
  'reportVersion',
  'verdict',
]);

/** Every string of a summary (but the enumerations) replaced by a hostile one, in turn. */
function hostileEverywhere<T>(value: T, pick: () => string): T {
  const at = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return ENUM_MEMBERS.has(key) ? v : pick();
    if (Array.isArray(v)) return v.map((x) => at(x, key));
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, at(x, k)]));
    return v;
  };
  return at(value, '') as T;
}

function cycling(strings: readonly string[]): () => string {
  let i = 0;
  return () => strings[i++ % strings.length]!;
}

const md = new MarkdownIt({ html: true, linkify: true });
type Token = ReturnType<typeof md.parse>[number];

/** The report's own headings: nothing else may be one. */
const OWN_HEADING =
  /^(?:payconform audit \w+: [A-Z]+ \(exit \d+\)|payconform: (?:\d+ regressed|no regression)|(?:Failures|Warnings|MUST requirements not exercised|Baseline) \(\d+\))$/;

/** Every token, children included. */
function tokensOf(markdown: string): Token[] {
  const out: Token[] = [];
  const walk = (ts: readonly Token[]): void => {
    for (const t of ts) {
      out.push(t);
      if (t.children !== null) walk(t.children);
    }
  };
  walk(md.parse(markdown, {}));
  return out;
}

/** What makes rendered Markdown unsafe: an active element, or an attacker's words outside code. */
function activeElements(markdown: string): string[] {
  const problems: string[] = [];
  const tokens = tokensOf(markdown);
  for (const [i, t] of tokens.entries()) {
    if (['link_open', 'image', 'html_inline', 'html_block'].includes(t.type))
      problems.push(`${t.type}: ${t.content || t.attrGet('href') || ''}`);
    if (t.type === 'heading_open') {
      const title = tokens[i + 1]?.content ?? '';
      if (!OWN_HEADING.test(title)) problems.push(`heading: ${title}`);
    }
    // Text outside code: the report's own words only (mentions, references and URLs are found there).
    if (t.type === 'text' && /evil|@|https?:|www\.|<|>/i.test(t.content))
      problems.push(`text outside code: ${t.content}`);
  }
  if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/.test(markdown))
    problems.push('a control character');
  return problems;
}

/** Table rows that do not have their header's number of cells (a `|` that left its code span). */
function brokenRows(markdown: string): number {
  let broken = 0;
  const tokens = tokensOf(markdown);
  let header = -1;
  let cells = 0;
  for (const t of tokens) {
    if (t.type === 'tr_open') cells = 0;
    if (t.type === 'th_open' || t.type === 'td_open') cells += 1;
    if (t.type === 'tr_close') {
      if (header === -1) header = cells;
      else if (cells !== header) broken += 1;
    }
  }
  return broken;
}

/** Control characters a terminal would act on: everything but line feed, once our own colours are taken out. */
function terminalControls(text: string): string[] {
  const stripped = text.replace(/\u001b\[\d+m/g, '');
  return [
    ...stripped.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/g),
  ].map((m) => JSON.stringify(m[0]));
}

let sample: RunSummary;

beforeAll(async () => {
  const summary = await runChecks({
    checks: oneCheckPerOutcome('x'),
    context: null,
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: '0.1.0',
  });
  const key = { check: 'fails', requirement: 'SIG-VERIFY-SIGNATURE', class: 'fail' } as const;
  // Every optional part a report can show, so that each gets a hostile string: a baseline, a stopped reason, a
  // rerun, blocking problems, partial reasons, a requirement table with reasons.
  sample = {
    ...summary,
    results: summary.results.map((r) => ({ ...r, rerun: 'payconform audit server --only x' })),
    partial: true,
    partialReasons: ['partial'],
    blocking: ['blocking'],
    requirements: {
      ...summary.requirements,
      table: {
        rows: [
          { id: 'R-1', level: 'MUST', must: true, status: 'inconclusive', checks: [], reason: 'r' },
          { id: 'R-2', level: 'MUST', must: true, status: 'failed', checks: ['fails'] },
        ],
        must: { total: 2, exercised: 1 },
      },
    },
    baseline: {
      file: 'baseline.json',
      known: [{ ...key, reason: 'tracked', expires: '2027-01-01' }],
      new: [{ ...key, header: 'x-h', pointer: '/p' }],
      expired: [{ ...key, status: 500, reason: 'old', expires: '2026-01-01' }],
      fixed: [key],
      unobserved: [key],
      notRun: [key],
    },
  };
});

describe('Markdown: hostile strings in every field stay inert (rendered by markdown-it)', () => {
  it('the Markdown report of a failing run and of a stopped one', () => {
    for (const stopped of [false, true]) {
      const base = stopped ? { ...sample, stopped: { exitCode: 3 as const, reason: 'r' } } : sample;
      for (let offset = 0; offset < HOSTILE.length; offset++) {
        const shifted = [...HOSTILE.slice(offset), ...HOSTILE.slice(0, offset)];
        const report = renderMarkdownReport(hostileEverywhere(base, cycling(shifted)));
        expect(activeElements(report), report).toEqual([]);
        // The failures are still named: the report still says what failed, only inertly.
        expect(report).toContain('#### Failures (2)');
      }
    }
  });

  it('diff --format md: targets, times, ids and notes from two files', () => {
    const report = toJsonReport(sample);
    for (let offset = 0; offset < HOSTILE.length; offset++) {
      const shifted = [...HOSTILE.slice(offset), ...HOSTILE.slice(0, offset)];
      const a = hostileEverywhere(report, cycling(shifted));
      const b = hostileEverywhere(report, cycling([...shifted].reverse()));
      const d = diffReports(a, {
        ...b,
        results: b.results.map((r) => ({ ...r, outcome: 'fail' })),
      });
      const text = renderDiffMarkdown(d);
      expect(activeElements(text), text).toEqual([]);
      expect(brokenRows(text), text).toBe(0);
      expect(text).toContain('| change | what | before | after | note |');
    }
  });

  it('a code span holds any string, drawn from the dangerous pieces (fast-check, 300 draws)', () => {
    const piece = fc.constantFrom(...HOSTILE, '`', '``', '|', '\\', ' ', '\n', 'evil', '\u0000');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
        (s) => {
          const text = `${markdownCode(s)} and | ${markdownCode(s, { place: 'cell' })} |`;
          const inline = tokensOf(
            `| a | b |\n|---|---|\n| ${markdownCode(s, { place: 'cell' })} | x |`,
          );
          expect(activeElements(text)).toEqual([]);
          expect(inline.filter((t) => t.type === 'td_open')).toHaveLength(2);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a real code span shows the text itself (controls escaped), not a cut or mangled copy', () => {
    const s = 'a ``b`` | c';
    expect(md.renderInline(markdownCode(s))).toBe('<code>a ``b`` | c</code>');
    expect(md.renderInline(markdownCode('`x`'))).toBe('<code>`x`</code>');
    expect(md.renderInline(markdownCode('\u001b[2J'))).toBe('<code>\\x1b[2J</code>');
    expect(markdownCode('x'.repeat(50), { max: 10 })).toBe('`xxxxxxxxxx` … (40 more characters)');
  });
});

describe('terminal: no control character but our colours and line breaks', () => {
  it('the console summary, plain and in colour, and the progress lines', () => {
    for (let offset = 0; offset < HOSTILE.length; offset += 3) {
      const shifted = [...HOSTILE.slice(offset), ...HOSTILE.slice(0, offset)];
      const hostile = hostileEverywhere(sample, cycling(shifted));
      for (const colour of [false, true]) {
        const text = renderConsoleSummary(hostile, {
          colour,
          verbose: true,
          ending: { exitCode: 2, reason: shifted[0]! },
        });
        expect(terminalControls(text), text).toEqual([]);
      }
      let printed = '';
      const reporter = createConsoleReporter({
        stream: { write: (t: string) => (printed += t), isTTY: true },
      });
      const events: RunEvent[] = [
        {
          type: 'run-started',
          target: shifted[1]!,
          role: 'server',
          toolVersion: '0',
          startedAt: shifted[2]!,
          checks: [],
        },
        ...hostile.results.map((result, i): RunEvent => ({
          type: 'check-finished',
          result,
          completed: i + 1,
          total: hostile.results.length,
        })),
        { type: 'run-finished', summary: hostile },
      ];
      events.forEach(reporter);
      expect(terminalControls(printed), printed).toEqual([]);
    }
  });

  it('diff text', () => {
    const report = toJsonReport(sample);
    const a = hostileEverywhere(report, cycling(HOSTILE));
    const b = hostileEverywhere(report, cycling([...HOSTILE].reverse()));
    const text = renderDiffText(diffReports({ ...a, target: '\u001b[2J evil\r' }, b));
    expect(terminalControls(text), text).toEqual([]);
    expect(text).toContain('\\x1b[2J');
  });

  it('attest verify: an envelope with a hostile keyid, and a usage error quoting a hostile path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payconform-output-safety-'));
    const envelope = join(dir, 'hostile.intoto.json');
    writeFileSync(
      envelope,
      // Canonical (compact, one final newline), so that verification reaches the keyid.
      `${JSON.stringify({
        payloadType: 'application/vnd.in-toto+json',
        payload: Buffer.from('{}').toString('base64'),
        signatures: [{ keyid: '\u001b[2J\u001b[Hverified: signed\r', sig: 'AAAA' }],
      })}\n`,
    );
    const publicKey = join(dir, 'key.pub');
    writeFileSync(publicKey, loadTestKeys().clientEd25519.publicPem);
    const io = memoryIo();
    const code = await main(['attest', 'verify', envelope, '--public-key', publicKey], io);
    const printed = io.out.join('') + io.err.join('');
    expect(code).toBe(1);
    expect(printed).toContain('not verified');
    expect(printed).toContain('\\x1b[2J\\x1b[Hverified: signed\\r');
    expect(terminalControls(printed), printed).toEqual([]);
    const usage = memoryIo();
    expect(
      await main(
        ['attest', 'verify', join(dir, 'evil\u001b[2J'), '--public-key', publicKey],
        usage,
      ),
    ).toBe(2);
    // The path is shown with its ESC escaped: as printable.ts writes it, or as JSON quotes it (the file reader's
    // message quotes a path with JSON.stringify); either way no control character reaches the terminal.
    expect(usage.err.join('')).toMatch(/evil\\(?:x1b|u001b)\[2J/);
    expect(terminalControls(usage.err.join(''))).toEqual([]);
  });

  it("an audit's own message about a path (a report it cannot write) names it escaped (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payconform-output-safety-'));
    const notADirectory = join(dir, 'file');
    writeFileSync(notADirectory, '');
    const report = join(notADirectory, 'evil\u001b[2J\u001b[Hverified.json');
    const io = memoryIo();
    const code = await main(['audit', 'server', '--no-explore', '--report', `json:${report}`], io);
    const printed = io.out.join('') + io.err.join('');
    expect(code, printed).toBe(2);
    expect(printed).toContain('evil\\x1b[2J\\x1b[Hverified.json');
    expect(terminalControls(printed), printed).toEqual([]);
  });
});

describe('HTML and JUnit: no control, bidirectional or separator character as itself', () => {
  const RAW =
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
  it('every string a target or file controls is shown with escapes, in both', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        for (const out of [htmlEscape(s), xmlEscape(s)]) expect(out).not.toMatch(RAW);
      }),
    );
    expect(htmlEscape('ok\u001b[2J\u0007\u202e<b>')).toBe('ok\\x1b[2J\\x07\\u202e&lt;b&gt;');
    expect(xmlEscape('ok\u001b\u202e"')).toBe('ok\\x1b\\u202e&quot;');
  });
});

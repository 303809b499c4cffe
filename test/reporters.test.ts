// Reporters: the JSON report validates against its schema, the JUnit XML is well-formed and escaped, the HTML page is
// self-contained and escaped with failures first, the console reporter shows progress and colours only on a TTY;
// --report parsing and report writing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../conformance/run/engine.js';
import { parseReportSpec, parseReportSpecs, writeReports } from '../cli/reports.js';
import { createConsoleReporter, useColour } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport, xmlEscape } from '../conformance/reporters/junit.js';
import { loadCatalogue } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import { validateAgainst } from '../src/schemas/index.js';
import { oneCheckPerOutcome } from './fixtures/reporter-checks.js';

const REPORT_SCHEMA_ID = 'https://payconform.dev/schemas/conformance-report.schema.json';
const hostile = `<script>alert("x")</script> & ' ]]> \u0001 \uD800 end`;

let summary: RunSummary;
let consoleOut = '';
beforeAll(async () => {
  summary = await runChecks({
    checks: oneCheckPerOutcome(hostile),
    context: null,
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: '0.1.0',
    subscribers: [
      createConsoleReporter({ stream: { write: (t: string) => (consoleOut += t), isTTY: false } }),
    ],
  });
});

describe('JSON report', () => {
  it('validates against schemas/conformance-report.schema.json and is versioned', () => {
    const validate = (value: unknown) => validateAgainst(REPORT_SCHEMA_ID, value);
    const report = JSON.parse(renderJsonReport(summary));
    const result = validate(report);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(report).toMatchObject({
      reportVersion: '1',
      verdict: 'fail',
      exitCode: 1,
      counts: { pass: 1, fail: 1, warn: 1, skip: 1, 'n/a': 1, error: 1 },
    });
    const failed = report.results.find((r: { id: string }) => r.id === 'fails');
    expect(failed.findings[0].evidence.request.headers[0]).toEqual([
      'Content-Type',
      'application/vnd.service.v1.0+json',
    ]);
    expect(failed.findings[0].evidence.response.body).toEqual({ bytes: 2, base64: '/wE=' });
    // The schema is strict: an unknown member fails it.
    expect(validate({ ...report, extra: 1 }).valid).toBe(false);
  });
});

/** A small XML well-formedness checker: tags nest and match, attributes are quoted, entities are known, no raw `<`/`&`. */
function assertWellFormedXml(xml: string): number {
  let i = 0;
  const stack: string[] = [];
  let elements = 0;
  const checkText = (text: string): void => {
    if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text))
      throw new Error(`bad entity in ${text.slice(0, 40)}`);
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) throw new Error('control character');
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text))
      throw new Error('lone surrogate');
  };
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    if (lt === -1) {
      checkText(xml.slice(i));
      if (xml.slice(i).trim() !== '') throw new Error('text after root');
      break;
    }
    const text = xml.slice(i, lt);
    if (text.includes('>') && text.includes(']]>')) throw new Error(']]> in text');
    checkText(text);
    const gt = xml.indexOf('>', lt);
    if (gt === -1) throw new Error('unterminated tag');
    const tag = xml.slice(lt + 1, gt);
    if (tag.startsWith('/')) {
      if (stack.pop() !== tag.slice(1).trim()) throw new Error(`mismatched </${tag.slice(1)}>`);
    } else {
      const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)$/.exec(tag);
      if (!m) throw new Error(`malformed tag <${tag.slice(0, 60)}>`);
      checkText(m[2] ?? '');
      if (stack.length === 0 && elements > 0) throw new Error('second root');
      elements += 1;
      if (m[3] !== '/') stack.push(m[1]!);
    }
    i = gt + 1;
  }
  if (stack.length > 0) throw new Error(`unclosed ${stack.join(',')}`);
  return elements;
}

describe('JUnit report', () => {
  it('is well-formed XML with one testcase per check and the right failure/error/skipped elements', () => {
    const xml = renderJunitReport(summary);
    expect(assertWellFormedXml(xml)).toBeGreaterThan(6);
    // One testcase per check and nothing else: a MUST requirement the run did not exercise is a property (with the
    // reason), since a skipped test case of its own made JUnit count more tests and skips than the other reports.
    const unexercised = (summary.requirements.table?.rows ?? []).filter(
      (r) => r.must && r.status !== 'passed' && r.status !== 'failed',
    );
    expect(unexercised.length).toBeGreaterThan(0);
    expect(xml.match(/<testcase classname="payconform\.(?!requirements)/g)).toHaveLength(6);
    expect(xml.match(/<testcase classname="payconform\.requirements"/g)).toBeNull();
    for (const r of unexercised) expect(xml).toContain(`<property name="requirement.${r.id}" `);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml.match(/<error /g)).toHaveLength(1);
    expect(xml.match(/<skipped /g)).toHaveLength(2);
    expect(xml).toContain(`tests="6" failures="1" errors="1" skipped="2"`);
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('POST http://127.0.0.1:9/api/payouts'); // evidence in the failure body
  });

  it('the checker itself rejects broken XML', () => {
    expect(() => assertWellFormedXml('<a><b></a></b>')).toThrow();
    expect(() => assertWellFormedXml('<a x="1">&bogus;</a>')).toThrow();
    expect(() => assertWellFormedXml(`<a>${'<'}</a>`)).toThrow();
    expect(assertWellFormedXml(`<a t="${xmlEscape(hostile)}">${xmlEscape(hostile)}</a>`)).toBe(1);
  });
});

describe('HTML report', () => {
  const html = () => renderHtmlReport(summary, { catalogue: loadCatalogue() });

  it('is self-contained: no scripts, no external resources', () => {
    const page = html();
    expect(page).not.toMatch(
      /<script|<link|<img|<iframe|\ssrc=|url\(|https?:\/\/(?!127\.0\.0\.1)/i,
    );
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('escapes everything and lists failures first with requirement text and evidence in <pre>', () => {
    const page = html();
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.indexOf('id="errors"')).toBeLessThan(page.indexOf('id="fails"'));
    expect(page.indexOf('id="fails"')).toBeLessThan(page.indexOf('id="warns"'));
    expect(page.indexOf('id="warns"')).toBeLessThan(page.indexOf('id="passes"'));
    expect(page).toContain(loadCatalogue().byId.get('SIG-VERIFY-SIGNATURE')!.text);
    expect(page).toMatch(/<pre>POST http:\/\/127\.0\.0\.1:9\/api\/payouts\n/);
  });
});

describe('console reporter', () => {
  it('shows progress with how many are left, then a summary by area and the verdict', () => {
    expect(consoleOut).toMatch(/\[1\/6\] .* 5 left/);
    expect(consoleOut).toMatch(/\[6\/6\] .* 0 left/);
    expect(consoleOut).toContain('Summary by area:');
    expect(consoleOut).toMatch(/^ {2}cop +1 fail$/m);
    expect(consoleOut).toContain('expected: 4xx');
    expect(consoleOut).toContain('verdict: FAIL');
    expect(consoleOut).not.toContain('\x1b[');
  });

  it('colours only on a TTY with NO_COLOR unset or empty', () => {
    expect(useColour({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(useColour({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ write: () => true, isTTY: false }, {})).toBe(false);
    let out = '';
    const reporter = createConsoleReporter({
      stream: { write: (t: string) => (out += t), isTTY: true },
      env: {},
    });
    reporter({ type: 'run-finished', summary });
    expect(out).toContain('\x1b[31m');
  });
});

describe('--report FORMAT:PATH', () => {
  it('parses the three formats and rejects the rest with a usage message', () => {
    expect(parseReportSpec('json:out/r.json')).toEqual({ format: 'json', path: 'out/r.json' });
    expect(parseReportSpec('JUNIT:-')).toEqual({ format: 'junit', path: '-' });
    expect(parseReportSpec('html:C:\\r.html')).toEqual({ format: 'html', path: 'C:\\r.html' });
    expect(() => parseReportSpec('xml:r.xml')).toThrow(/unknown format "xml"/);
    expect(() => parseReportSpec('json')).toThrow(/FORMAT:PATH/);
    expect(() => parseReportSpec('json:')).toThrow(/missing PATH/);
    expect(() => parseReportSpecs(['json:a', 'html:a'])).toThrow(/same|"a"/);
  });

  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'payconform-reports-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every report, creating directories, and returns failures instead of throwing', async () => {
    let stdout = '';
    const failures = await writeReports(
      summary,
      [
        { format: 'json', path: join(dir, 'a/b/report.json') },
        { format: 'html', path: join(dir, 'report.html') },
        { format: 'junit', path: '-' },
        { format: 'json', path: join(dir, 'report.html', 'inside-a-file.json') },
      ],
      { stdout: (t) => (stdout += t) },
    );
    expect(JSON.parse(readFileSync(join(dir, 'a/b/report.json'), 'utf8')).reportVersion).toBe('1');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<!DOCTYPE html>');
    expect(stdout).toContain('<testsuites');
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toContain('cannot write json report');
  });
});

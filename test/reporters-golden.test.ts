// The console summary, the JUnit XML and the Markdown report, byte for byte: fixed summaries (every outcome, every gate, a stopped run, run
// problems, evidence cuts, a baseline, hostile text) rendered and compared with the files in test/golden/reporters/.
// A change of layout shows up here as a diff; update the files only when the new bytes are meant.
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../conformance/run/engine.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { renderMarkdownReport } from '../conformance/reporters/markdown.js';
import type { RequirementRow, RequirementTable, RunSummary } from '../conformance/run/result.js';
import { oneCheckPerOutcome } from './fixtures/reporter-checks.js';

// No lone surrogate here: a golden file is UTF-8, which cannot hold one (reporters.test.ts covers them in XML).
const hostile = `<script>alert("x")</script> & ' ]]> \u0001 end`;

const row = (id: string, fields: Partial<RequirementRow>): RequirementRow => ({
  id,
  level: 'MUST',
  must: true,
  status: 'not-exercised',
  checks: [],
  ...fields,
});

/**
 * A requirement table of its own (not the catalogue's, which grows): every status, an explored pass, the kinds of
 * "not exercised", and more than twelve MUST requirements left unexercised (the console lists twelve, then a count).
 */
const table: RequirementTable = {
  rows: [
    row('SIG-VERIFY-SIGNATURE', { status: 'failed', checks: ['fails'] }),
    row('SIG-LABEL-SIG1', {
      status: 'passed',
      checks: ['passes', 'warns'],
      explored: 'judged by the exploration in 3 steps',
    }),
    row('REFUND-SETTLED', { status: 'inconclusive', reason: `target stopped ${hostile}` }),
    row('WEBHOOK-SIGNED', { reason: 'not applicable', unexercised: 'not-applicable' }),
    row('APP-ID-REQUIRED', { reason: 'no check covers it', unexercised: 'uncovered' }),
    row('SIG-ALGORITHMS', { level: 'SHOULD', must: false, reason: 'skipped' }),
    ...Array.from({ length: 13 }, (_, i) =>
      row(`DESELECTED-${i + 1}`, { reason: 'not selected', unexercised: 'deselected' }),
    ),
  ],
  must: { total: 18, exercised: 2 },
};

/** The run's own summary with its clock readings fixed, so that it renders the same bytes every time. */
let plain: RunSummary;
/** The same run under every gate, stopped, with run problems, evidence cuts, a baseline and a rerun command. */
let gated: RunSummary;

beforeAll(async () => {
  const summary = await runChecks({
    checks: oneCheckPerOutcome(hostile),
    context: null,
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: '0.1.0',
  });
  plain = {
    ...summary,
    startedAt: '2026-01-02T03:04:05.678Z',
    finishedAt: '2026-01-02T03:04:06.912Z',
    durationMs: 1234,
    catalogueVersion: '1',
    requirements: {
      covered: ['SIG-VERIFY-SIGNATURE'],
      notRun: ['REFUND-SETTLED'],
      uncovered: [],
      table,
    },
    results: summary.results.map((r, i) => ({ ...r, durationMs: 10 * i + 3 })),
  };
  const key = { check: 'fails', requirement: 'SIG-VERIFY-SIGNATURE', class: 'fail' } as const;
  gated = {
    ...plain,
    results: plain.results.map((r, i) =>
      i === 1 ? { ...r, rerun: 'payconform audit server --only fails' } : r,
    ),
    gate: { failOn: ['warn', 'skip', 'unexercised'], allowSkips: false },
    partial: true,
    partialReasons: ['run stopped', `hostile ${hostile}`],
    blocking: [`client exited 1 ${hostile}`, 'second problem'],
    evidence: { bodyBytes: 4096, runBytes: 65536, keptBytes: 5000, bodiesCut: 2 },
    baseline: {
      file: 'baseline.json',
      known: [{ ...key, reason: `tracked ${hostile}` }],
      new: [{ check: 'warns', requirement: 'SIG-LABEL-SIG1', class: 'warn', status: 201 }],
      expired: [{ ...key, header: 'content-type', reason: 'old', expires: '2026-01-01' }],
      fixed: [{ check: 'passes', requirement: 'SIG-LABEL-SIG1', class: 'fail', pointer: '/a' }],
      unobserved: [],
      notRun: [{ check: 'skips', requirement: 'SIG-LABEL-SIG1', class: 'error' }],
    },
    stopped: { exitCode: 3, reason: `target stopped answering ${hostile}` },
  };
});

describe('golden output: the console summary', () => {
  it('plain, no colour', async () => {
    await expect(renderConsoleSummary(plain)).toMatchFileSnapshot(
      'golden/reporters/console-plain.txt',
    );
  });

  it('gated and stopped, in colour, verbose', async () => {
    await expect(renderConsoleSummary(gated, { colour: true, verbose: true })).toMatchFileSnapshot(
      'golden/reporters/console-gated-colour.txt',
    );
  });

  it('with the command’s own ending', async () => {
    const text = renderConsoleSummary(
      { ...plain, counts: { ...plain.counts, fail: 0, error: 0, warn: 0 }, results: [] },
      { colour: true, ending: { exitCode: 2, reason: 'a report was not written' } },
    );
    await expect(text).toMatchFileSnapshot('golden/reporters/console-ending.txt');
  });
});

describe('golden output: the JUnit XML', () => {
  it('plain', async () => {
    await expect(renderJunitReport(plain)).toMatchFileSnapshot('golden/reporters/junit-plain.xml');
  });

  it('gated, stopped, with run problems, evidence and a baseline', async () => {
    await expect(renderJunitReport(gated)).toMatchFileSnapshot('golden/reporters/junit-gated.xml');
  });
});

describe('golden output: the Markdown report', () => {
  it('plain', async () => {
    await expect(renderMarkdownReport(plain)).toMatchFileSnapshot(
      'golden/reporters/markdown-plain.md',
    );
  });

  it('gated, stopped, with run problems and a baseline', async () => {
    await expect(renderMarkdownReport(gated)).toMatchFileSnapshot(
      'golden/reporters/markdown-gated.md',
    );
  });
});

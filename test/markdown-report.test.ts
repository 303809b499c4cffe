// `--report markdown:FILE` (docs/cli.md, "Reports") for the three audits, in-process: a server audit
// of the reference service with a fault names its failures (check, requirement, evidence) and exits 1, the same
// audit of the clean and alt personalities passes and says so; a webhook audit of a receiver that refuses every delivery
// names the checks it fails; a client audit refused before its checks still writes the report, saying why; a run
// too large for the bound is cut to it and says what it left out.
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import {
  MARKDOWN_REPORT_MAX_CHARS,
  renderMarkdownReport,
} from '../conformance/reporters/markdown.js';
import type { CheckResult, RunSummary } from '../conformance/run/result.js';
import type { FaultName, ServiceVariant } from '../server/index.js';
import { memoryIo } from './fixtures/memory-io.js';
import {
  startTestApplicationService,
  TEST_APPLICATION,
} from './fixtures/test-application-service.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-markdown-report-'));
/** Two checks: enough to show a failure and a pass (the whole suite is other tests' business). */
const ONLY = 'refund-partial-accepted,payout-signed-accepted';

/** Audits the reference service (with `faults`, as `variant`) through `main`, and returns the Markdown report. */
async function auditServer(
  name: string,
  faults: readonly FaultName[],
  variant: ServiceVariant = 'clean',
): Promise<{ code: number; markdown: string }> {
  const target = await startTestApplicationService({ faults, variant });
  try {
    const config = join(dir, `${name}.config.json`);
    target.writeConfig(config);
    const file = join(dir, `${name}.md`);
    const io = memoryIo({ env: target.env });
    const code = await main(
      [
        'audit',
        'server',
        '--no-explore',
        '--only',
        ONLY,
        '--target',
        target.service.baseUrl,
        '--config',
        config,
        '--report',
        `markdown:${file}`,
      ],
      io,
    );
    return { code, markdown: readFileSync(file, 'utf8') };
  } finally {
    await target.service.close();
  }
}

describe('audit server --report markdown:FILE', () => {
  it('a run of a faulty service names its failures: the check, the requirement, the exchange (exit 1)', async () => {
    const { code, markdown } = await auditServer('fault', ['refund-partial-rejected']);
    expect(code, markdown).toBe(1);
    expect(markdown).toMatch(/^### payconform audit server: FAIL \(exit 1\)\n/);
    expect(markdown).toContain('**1** fail');
    expect(markdown).toContain('#### Failures (1)');
    expect(markdown).toMatch(/- \*\*FAIL\*\* `refund-partial-accepted` \(MUST\)/);
    expect(markdown).toMatch(
      /- \*\*FAIL\*\* .* · requirement `REFUND-PARTIAL-ALLOWED` · .*received `422 .*exchange `POST http:\/\/127\.0\.0\.1:\d+\/api\/merchants\/[^`]+\/refunds → HTTP 422/,
    );
    expect(markdown).not.toContain(TEST_APPLICATION.secret);
  }, 60_000);

  it('the same run of the clean and alt personalities passes and says so (exit 0)', async () => {
    for (const variant of ['clean', 'alt'] as const) {
      const { code, markdown } = await auditServer(variant, [], variant);
      expect(code, markdown).toBe(0);
      expect(markdown).toMatch(/^### payconform audit server: PASS \(exit 0\)\n/);
      expect(markdown).toContain('**0** fail');
      expect(markdown).not.toContain('#### Failures');
    }
  }, 60_000);
});

describe('the other audits', () => {
  it('audit webhooks: a receiver that refuses every delivery fails, and the report names the checks', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const file = join(dir, 'webhooks.md');
    try {
      const io = memoryIo({ env: {} });
      const code = await main(
        [
          'audit',
          'webhooks',
          '--target',
          url,
          '--public-key-out',
          join(dir, 'webhooks.pem'),
          '--report',
          `markdown:${file}`,
        ],
        io,
      );
      const markdown = readFileSync(file, 'utf8');
      expect(code, io.err.join('')).toBe(1);
      expect(markdown).toMatch(/^### payconform audit receiver: FAIL \(exit 1\)\n/);
      expect(markdown).toMatch(/#### Failures \(\d+\)/);
      expect(markdown).toMatch(/- \*\*FAIL\*\* `webhook-[a-z-]+` \(MUST\)/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);

  it('audit client refused before its checks: the report is written and says why (exit 2)', async () => {
    const file = join(dir, 'client.md');
    const io = memoryIo({ env: {} });
    const code = await main(['audit', 'client', '--report', `markdown:${file}`], io);
    const markdown = readFileSync(file, 'utf8');
    expect(code).toBe(2);
    expect(markdown).toMatch(/^### payconform audit client: ERROR \(exit 2\)\n/);
    expect(markdown).toContain('No check ran.');
    expect(markdown).toMatch(/\*\*Why:\*\* `[^`]+`/);
    expect(markdown).toContain(
      io.err
        .join('')
        .split('\n')[0]!
        .replace(/^payconform audit client: /, ''),
    );
  });
});

describe('the bound', () => {
  it('a run too large is cut under the bound, keeping failures first and saying what it left out', () => {
    const failing = (i: number): CheckResult => ({
      id: `check-${i}`,
      title: `check ${i}`,
      area: 'a',
      level: 'MUST',
      appliesTo: 'server',
      requirements: ['R'],
      outcome: i % 2 === 0 ? 'fail' : 'warn',
      message: 'x'.repeat(1000),
      durationMs: 1,
      findings: Array.from({ length: 8 }, () => ({
        outcome: i % 2 === 0 ? ('fail' as const) : ('warn' as const),
        level: 'MUST' as const,
        requirement: 'R',
        message: 'y'.repeat(1000),
        expected: 'e',
        received: 'r',
      })),
    });
    const results = Array.from({ length: 400 }, (_, i) => failing(i));
    const summary: RunSummary = {
      target: 'http://127.0.0.1:9',
      role: 'server',
      toolVersion: '0',
      catalogueVersion: '1',
      startedAt: 't',
      finishedAt: 't',
      durationMs: 1,
      selection: { level: 'all', deselected: [] },
      partial: false,
      partialReasons: [],
      results,
      counts: { pass: 0, fail: 200, warn: 200, skip: 0, 'n/a': 0, error: 0 },
      requirements: { covered: [], notRun: [], uncovered: [] },
      gate: { failOn: [], allowSkips: false },
      blocking: [],
    };
    const markdown = renderMarkdownReport(summary);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_REPORT_MAX_CHARS);
    expect(markdown.length).toBeGreaterThan(MARKDOWN_REPORT_MAX_CHARS / 2);
    expect(markdown).toContain('#### Failures (200)');
    expect(markdown).toContain('#### Warnings (200)');
    const shownFailures = (markdown.match(/^- \*\*FAIL\*\* `check-/gm) ?? []).length;
    expect(shownFailures).toBeGreaterThan(0);
    expect(shownFailures).toBeLessThan(200);
    expect(markdown).toContain(
      `To stay under ${MARKDOWN_REPORT_MAX_CHARS} characters it also left out ${200 - shownFailures} failing checks, 200 warned checks, ${shownFailures * 3} more findings of the checks shown.`,
    );
    // A field is cut at its bound, saying by how much.
    expect(markdown).toContain('… (760 more characters)');
    const small = renderMarkdownReport(summary, { maxChars: 5_000 });
    expect(small.length).toBeLessThanOrEqual(5_000);
    expect(small).toContain('To stay under 5000 characters');
  });
});

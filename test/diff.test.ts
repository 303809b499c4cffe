// `payconform diff OLD.json NEW.json` (docs/cli.md, "Two runs compared"): the reports of real audits of `payconform
// serve` on one port, before and after a deploy that breaks partial refunds (--fault refund-partial-rejected): the
// check and the requirement it breaks regressed (exit 1; text, JSON and Markdown), the other way round they are fixed
// (exit 0), a check only one run selected is inconclusive (the selections named), runs of different targets (another
// port) are compared as usual with the targets named in the header, and a file that is not a report is a usage error.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReportDiff } from '../conformance/report/diff.js';
import { runMain } from './fixtures/cli.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { startLongLivedTarget } from './fixtures/long-lived-target.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-diff-'));
const ONLY = 'payout-signed-accepted,refund-partial-accepted';

/** Audits `payconform serve FLAGS` on `port` with `--only ONLY`, and keeps its JSON report as `name`. */
async function reportOf(name: string, port: number, flags: string[], only = ONLY): Promise<string> {
  const target = await startLongLivedTarget(['--port', String(port), ...flags]);
  try {
    const run = await target.audit(['--only', only, '--report', 'json:run.json']).done;
    expect([0, 1], run.out).toContain(run.code);
    copyFileSync(join(target.dir, 'run.json'), join(dir, name));
    return join(dir, name);
  } finally {
    await target.close();
  }
}

const diff = (args: string[]) => runMain(['diff', ...args], { PATH: process.env['PATH'] ?? '' });

let before: string;
let after: string;
let fewer: string;
let elsewhere: string;

beforeAll(async () => {
  const [port, other] = await Promise.all([unusedLoopbackPort(), unusedLoopbackPort()]);
  // One port for the deploy (the same target before and after); the other runs beside it.
  [before, elsewhere] = await Promise.all([
    reportOf('before.json', port, []),
    reportOf('elsewhere.json', other, ['--fault', 'refund-partial-rejected']),
  ]);
  after = await reportOf('after.json', port, ['--fault', 'refund-partial-rejected']);
  fewer = await reportOf('fewer.json', port, [], 'payout-signed-accepted');
}, 120_000);

describe('payconform diff against real runs', () => {
  it('a deploy that breaks partial refunds: the check and its requirement regressed, exit 1', async () => {
    const text = await diff([before, after]);
    expect(text.code, text.stdout + text.stderr).toBe(1);
    expect(text.stdout).toMatch(/REGRESSED:\n {2}check refund-partial-accepted: passed → failed/);
    expect(text.stdout).toMatch(/ {2}requirement REFUND-PARTIAL-ALLOWED: passed → failed/);
    expect(text.stdout).toContain('verdict: REGRESSED, exit 1');
    const json = await diff([before, after, '--format', 'json']);
    const d = JSON.parse(json.stdout) as ReportDiff;
    expect(json.code).toBe(1);
    expect(d.differences).toEqual([]);
    expect(d.checks.filter((r) => r.change === 'regressed').map((r) => r.id)).toEqual([
      'refund-partial-accepted',
    ]);
    expect(d.checks.find((r) => r.id === 'payout-signed-accepted')?.change).toBe('unchanged');
    const md = await diff([before, after, '--format', 'md']);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^### payconform: \d+ regressed\n/);
    expect(md.stdout).toContain(
      '| regressed | check `refund-partial-accepted` | passed | failed |  |',
    );
  }, 30_000);

  it('the other way round it is fixed, exit 0', async () => {
    const r = await diff([after, before]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/FIXED:\n {2}check refund-partial-accepted: failed → passed/);
    expect(r.stdout).toContain('verdict: no regression, exit 0');
  }, 30_000);

  it('a check only one run selected is inconclusive, with the selection named', async () => {
    const r = await diff([fewer, before, '--format', 'json']);
    const d = JSON.parse(r.stdout) as ReportDiff;
    expect(r.code).toBe(0);
    expect(d.differences).toEqual([`--only: payout-signed-accepted → ${ONLY}`]);
    const row = d.checks.find((x) => x.id === 'refund-partial-accepted');
    expect(row?.change).toBe('inconclusive');
    expect(row?.note).toBe(
      `not exercised in the old run, whose selection differs (--only: payout-signed-accepted → ${ONLY})`,
    );
    const back = JSON.parse((await diff([before, fewer, '--format', 'json'])).stdout) as ReportDiff;
    expect(back.checks.find((x) => x.id === 'refund-partial-accepted')?.change).toBe(
      'inconclusive',
    );
    // What both runs selected is compared as usual.
    expect(d.checks.find((x) => x.id === 'payout-signed-accepted')?.change).toBe('unchanged');
  }, 30_000);

  it('runs of different targets (another port): compared as usual, the targets named; a regression exits 1', async () => {
    const r = await diff([before, elsewhere]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(
      /runs differ: target: http:\/\/127\.0\.0\.1:\d+ → http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(r.stdout).toMatch(/REGRESSED:\n {2}check refund-partial-accepted: passed → failed\n/);
    expect(r.stdout).not.toContain('INCONCLUSIVE');
  }, 30_000);

  it('usage errors: a file that is not a report, a missing file, an unknown format (exit 2)', async () => {
    const notReport = join(dir, 'not-report.json');
    writeFileSync(notReport, JSON.stringify({ hello: 'world' }));
    const a = await diff([before, notReport]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/not-report\.json" is not a payconform JSON report/);
    const b = await diff([before, join(dir, 'missing.json')]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/cannot read "\S+missing\.json": ENOENT \(no such file\)/);
    const c = await diff([before, after, '--format', 'xml']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--format must be text, json, md (got "xml")');
    expect(readFileSync(before, 'utf8')).toContain('"reportVersion"');
    // Standard input is one report at most.
    const d = await diff(['-', '-']);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('"-" (standard input) can be OLD.json or NEW.json, not both');
  }, 30_000);

  it('a run of another payconform version: named in the header, compared as usual', async () => {
    const other = join(dir, 'other-version.json');
    const report = JSON.parse(readFileSync(after, 'utf8')) as {
      toolVersion: string;
      tool: { version: string };
    };
    const version = report.toolVersion;
    report.toolVersion = report.tool.version = '9.9.9';
    writeFileSync(other, JSON.stringify(report));
    const r = await diff([before, other]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain(`payconform: ${version} → 9.9.9`);
    expect(r.stdout).toMatch(/REGRESSED:/);
  }, 30_000);
});

// Known findings with reasons (`--baseline FILE`, schemas/baseline.schema.json), against real runs of `payconform
// serve --fault`: --baseline-update writes the run's findings (keys only: no seed, id, time or token), a known finding
// stays green and says so in every report, a new fault on top of it turns the run red, an expired entry turns it red
// naming itself, an entry a clean service no longer shows is reported fixed, the user's reason, expires and unknown
// fields survive an update, and a malformed file is a usage error before anything runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_TO_WRITE, BASELINE_SCHEMA_ID } from '../conformance/report/baseline.js';
import type { RunSummary } from '../conformance/run/result.js';
import { validateAgainst } from '../src/schemas/index.js';
import { startLongLivedTarget, type LongLivedTarget } from './fixtures/long-lived-target.js';

const ONLY = ['--only', 'tracing-id-differs,public-key-form,payout-signed-accepted'];

let faulty: LongLivedTarget;
let worse: LongLivedTarget;
let clean: LongLivedTarget;

beforeAll(async () => {
  [faulty, worse, clean] = await Promise.all([
    startLongLivedTarget(['--fault', 'tracing-id-fixed']),
    startLongLivedTarget(['--fault', 'tracing-id-fixed', '--fault', 'public-key-full-pem']),
    startLongLivedTarget(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([faulty?.close(), worse?.close(), clean?.close()]);
});

/** `audit server --only … --baseline FILE ARGS` against `target`, with its JSON report, JUnit and HTML. */
async function audit(target: LongLivedTarget, file: string, args: readonly string[] = []) {
  const { code, out } = await target.audit([
    ...ONLY,
    '--baseline',
    file,
    ...args,
    '--report',
    `json:${join(target.dir, 'run.json')}`,
    '--report',
    `junit:${join(target.dir, 'run.xml')}`,
    '--report',
    `html:${join(target.dir, 'run.html')}`,
  ]).done;
  const read = (f: string): string => readFileSync(join(target.dir, f), 'utf8');
  return code === 2
    ? { code, out }
    : {
        code,
        out,
        report: JSON.parse(read('run.json')) as RunSummary,
        junit: read('run.xml'),
        html: read('run.html'),
      };
}

const file = (): string => join(faulty.dir, 'baseline.json');
const readBaseline = () =>
  JSON.parse(readFileSync(file(), 'utf8')) as { entries: Array<Record<string, unknown>> };

describe('--baseline and --baseline-update against payconform serve --fault', () => {
  it('--baseline-update writes the finding by its key alone, valid against the schema; the run passes', async () => {
    const r = await audit(faulty, file(), ['--baseline-update']);
    expect(r.code, r.out).toBe(0);
    const written = readBaseline();
    expect(validateAgainst(BASELINE_SCHEMA_ID, written)).toEqual({ valid: true });
    expect(written.entries).toEqual([
      {
        check: 'tracing-id-differs',
        requirement: expect.stringMatching(/^[A-Z]/),
        class: 'fail',
        status: 201, // the one discriminator: the answer the finding shows
        reason: REASON_TO_WRITE,
      },
    ]);
    // A key, never a seed, an id, a time or a replay token.
    expect(JSON.stringify(written)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}|\d{4}-\d\d-\d\dT|seed|~/);
  }, 60_000);

  it('a known finding stays green, and every report says it is known, with the reason', async () => {
    const b = readBaseline();
    b.entries[0]!['reason'] = 'the tracing id is fixed until the gateway is replaced';
    b.entries[0]!['ticket'] = 'PAY-1234'; // a field payconform does not know
    writeFileSync(file(), JSON.stringify(b));
    const r = await audit(faulty, file());
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(
      /known: tracing-id-differs \S+ fail status 201: the tracing id is fixed until/,
    );
    expect(r.report?.baseline?.known).toHaveLength(1);
    expect(r.report?.results.find((x) => x.id === 'tracing-id-differs')?.outcome).toBe('pass');
    expect(r.junit).toContain('<property name="baseline.known.1" value="tracing-id-differs');
    expect(r.html).toContain('the tracing id is fixed until the gateway is replaced');
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', r.report),
    ).toEqual({ valid: true });
  }, 60_000);

  it('a new fault on top of the known one turns the run red, named as new', async () => {
    const r = await audit(worse, file());
    expect(r.code, r.out).toBe(1);
    expect(r.report?.baseline?.new.map((k) => k.check)).toEqual(['public-key-form']);
    expect(r.report?.baseline?.known.map((k) => k.check)).toEqual(['tracing-id-differs']);
  }, 60_000);

  it('an expired entry turns the run red and names itself', async () => {
    const b = readBaseline();
    b.entries[0]!['expires'] = '2000-01-01';
    const expired = join(faulty.dir, 'expired.json');
    writeFileSync(expired, JSON.stringify(b));
    const r = await audit(faulty, expired);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(
      /run failed: baseline entry tracing-id-differs \S+ fail status 201 expired on 2000-01-01/,
    );
    expect(r.report?.baseline?.expired).toHaveLength(1);
  }, 60_000);

  it('an entry a fixed service no longer shows is reported fixed; an update drops it', async () => {
    const copy = join(clean.dir, 'baseline.json');
    writeFileSync(copy, readFileSync(file()));
    const r = await audit(clean, copy);
    expect(r.code, r.out).toBe(0);
    expect(r.report?.baseline?.fixed.map((k) => k.check)).toEqual(['tracing-id-differs']);
    expect(r.out).toMatch(/fixed \(not found again; remove the entry\): tracing-id-differs/);
    await audit(clean, copy, ['--baseline-update']);
    expect(JSON.parse(readFileSync(copy, 'utf8')).entries).toEqual([]);
  }, 60_000);

  it("an update keeps the user's reason, expires and fields it does not know", async () => {
    const b = readBaseline();
    b.entries[0]!['expires'] = '2999-12-31';
    writeFileSync(file(), JSON.stringify(b));
    const r = await audit(faulty, file(), ['--baseline-update']);
    expect(r.code, r.out).toBe(0);
    expect(readBaseline().entries).toEqual([
      expect.objectContaining({
        reason: 'the tracing id is fixed until the gateway is replaced',
        expires: '2999-12-31',
        ticket: 'PAY-1234',
      }),
    ]);
  }, 60_000);

  it('a malformed baseline is a usage error (exit 2) naming what is wrong, before anything runs', async () => {
    const bad = join(faulty.dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        baselineVersion: '1',
        entries: [
          { check: 'x', requirement: 'A-B', class: 'fail', status: 409, header: 'x', reason: 'r' },
        ],
      }),
    );
    const r = await audit(faulty, bad);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(
      /--baseline "\S+bad\.json" does not match schemas\/baseline\.schema\.json: \/entries\/0/,
    );
    const missing = await audit(faulty, join(faulty.dir, 'nope.json'));
    expect(missing.code).toBe(2);
    expect(missing.out).toMatch(/cannot read --baseline "\S+nope\.json": ENOENT/);
  }, 60_000);
});

// Bounded evidence, unit by unit (docs/security.md): a report keeps at most `bodyBytes` of a body and `runBytes` of
// bodies per run, says where it cut ("body cut at N bytes of M", "body not kept: ... limit"), and states the limits.
import { describe, expect, it } from 'vitest';
import { violation, type Check } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { EVIDENCE_BODY_BYTES, RUN_EVIDENCE_BYTES } from '../conformance/run/grade.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderJsonReport } from '../conformance/reporters/json.js';

const big = (n: number): Uint8Array => new TextEncoder().encode('x'.repeat(n));

/** A check whose target answered `bytes` bytes, of which the client read `read` (declared length when cut). */
function answering(id: string, bytes: number, read = bytes): Check<null> {
  return {
    id,
    title: 'a target with a long answer',
    area: 'transport',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET'],
    level: 'MUST',
    appliesTo: 'server',
    run: async () => [
      violation('answered 200', {
        evidence: {
          response: {
            status: 200,
            headers: [['content-length', String(bytes)]],
            body: big(read),
            ...(read < bytes ? { truncated: true } : {}),
          },
        },
      }),
    ],
  };
}

const run = (checks: Check<null>[], limits?: { bodyBytes: number; runBytes: number }) =>
  runChecks({
    checks,
    context: null,
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: 'test',
    concurrency: 1,
    ...(limits ? { evidenceLimits: limits } : {}),
  });

describe('bounded evidence', () => {
  it('states the default limits in the summary', async () => {
    const summary = await run([answering('small', 10)]);
    expect(summary.evidence).toEqual({
      bodyBytes: EVIDENCE_BODY_BYTES,
      runBytes: RUN_EVIDENCE_BYTES,
      keptBytes: 10,
      bodiesCut: 0,
    });
  });

  it('cuts a body at the per-body limit, saying of how much (the declared length when reading stopped)', async () => {
    const summary = await run([answering('huge', 1024 ** 3, 4096)], {
      bodyBytes: 1000,
      runBytes: 1e6,
    });
    const body = summary.results[0]!.findings[0]!.evidence!.response!.body;
    expect(body.text).toHaveLength(1000);
    expect(body).toMatchObject({ bytes: 1024 ** 3, truncated: true, kept: 1000 });
    expect(body.cut).toBe(`body cut at 1000 bytes of ${1024 ** 3}`);
    expect(renderJsonReport(summary)).toContain('"bodiesCut": 1');
    expect(renderConsoleSummary(summary)).toMatch(/evidence: 1 body cut/);
  });

  it('past the run limit a body is counted, not kept', async () => {
    const summary = await run(
      [answering('first', 800), answering('second', 800), answering('third', 800)],
      { bodyBytes: 1000, runBytes: 1000 },
    );
    const bodies = summary.results.map((r) => r.findings[0]!.evidence!.response!.body);
    expect(bodies[0]!.text).toHaveLength(800);
    expect(bodies[1]!.cut).toBe('body cut at 200 bytes of 800');
    expect(bodies[2]!.cut).toMatch(
      /^body not kept: the run's evidence limit of 1000 bytes was reached/,
    );
    expect(summary.evidence).toMatchObject({ keptBytes: 1000, bodiesCut: 2 });
  });
});

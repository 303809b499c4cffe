// The server audit fails a target only on a sentence the spec states: every requirement a server check can fail on
// quotes the spec's own words (found verbatim in the spec), and a requirement that is payconform's own choice or a
// "not shown" point cannot produce a failure (the grader turns it into a warning or a record).
import { describe, expect, it } from 'vitest';
import { serverChecks, type ServerAuditContext } from '../conformance/checks/server/index.js';
import { runChecks } from '../conformance/run/engine.js';
import { canFailTarget } from '../conformance/run/grade.js';
import { loadCatalogue } from '../conformance/requirements.js';
import { describeWithSpec, expectQuotedFromSpec, specContains } from './fixtures/spec.js';
import { variantChoices } from '../server/faults.js';

const catalogue = loadCatalogue();
/** A requirement whose violation the grader fails (MUST, stated by the spec, not payconform's choice). */
const canFail = (id: string): boolean => canFailTarget(catalogue.byId.get(id));

describe("server-audit requirements rest on the spec's words", () => {
  const cited = [...new Set(serverChecks.flatMap((c) => c.requirements))];

  describeWithSpec('in the spec', () => {
    it.each(cited.filter(canFail))('%s quotes the spec verbatim', (id) =>
      expectQuotedFromSpec(catalogue, id),
    );
  });

  it('every server check that can fail cites at least one such requirement first', () => {
    for (const check of serverChecks) {
      if (check.level !== 'MUST') continue;
      expect(check.requirements.some(canFail), check.id).toBe(true);
    }
  });

  it('payconform\'s choices and "not shown" points are marked, so the grader can keep them from failing', () => {
    const choices = catalogue.requirements
      .filter((r) => r.source === 'payconform' || !r.shown)
      .map((r) => r.id);
    expect(choices).toEqual(
      expect.arrayContaining([
        'SIG-PROFILE-NONCE-ATOMIC',
        'SIG-PROFILE-REJECTED-NO-EFFECT',
        'WEBHOOK-RETRY-TIMING',
        'ERROR-AUTH-FAILURE',
      ]),
    );
  });
});

describe('https-only (spec: Authentication / Other rules, "HTTPS only")', () => {
  const check = serverChecks.find((c) => c.id === 'https-only')!;
  const outcome = async (baseUrl: string) => {
    const summary = await runChecks({
      checks: [check],
      context: { baseUrl } as ServerAuditContext,
      role: 'server',
      target: baseUrl,
      toolVersion: '0.0.0-test',
    });
    return summary.results[0]!;
  };
  it('warns (never fails) for a non-loopback target over plain http://', async () => {
    const r = await outcome('http://payments.example.com');
    expect(r.outcome).toBe('warn');
    expect(r.findings[0]).toMatchObject({ requirement: 'SIG-HTTPS-ONLY', level: 'SHOULD' });
  });
  it('passes an https:// target and a loopback target over plain HTTP', async () => {
    expect((await outcome('https://payments.example.com')).outcome).toBe('pass');
    expect((await outcome('http://127.0.0.1:8080')).outcome).toBe('pass');
    expect((await outcome('http://[::1]:8080')).outcome).toBe('pass');
  });
});

describeWithSpec(
  "the alt personality's choices (server/faults.ts variantChoices, listed in the README)",
  () => {
    it.each(variantChoices.map((v) => [v.point, v.openBy] as const))(
      "%s: the spec words that leave it open are the spec's",
      (_point, openBy) => {
        for (const part of openBy
          .split('[...]')
          .map((p) => p.trim())
          .filter((p) => p !== ''))
          expect(specContains(part), part).toBe(true);
      },
    );
  },
);

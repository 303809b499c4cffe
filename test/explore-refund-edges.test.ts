// The explorer reaches the refund edges on targets whose refunds do not finish by themselves: a service audited by URL
// as `payconform serve` runs (refunds move on only through /sandbox/, which the explorer asks through the state hook
// contract's refund-status), and a service behind the starter state hook. Fault refund-total-float (the refund total
// summed and compared as JavaScript numbers: the exact rest after 0.10 and 0.20 of 0.30 refused) is found on both,
// and the correct service passes by URL (refunds moved on, then the rest accepted, judged against REFUND-PARTIAL-ALLOWED).
// Budget: each search stops at the first seed that finds it (seed 3 finds it within a second or two; shrinking takes a
// few more); the correct service explores 4 s; the three run side by side (they wait on their services).
import { describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { exploreSummary } from '../conformance/explore/explorer.js';
import { searchFresh, startStarterHook } from './fixtures/explore-targets.js';
import { auditByUrl, notPassing } from './fixtures/url-audited-service.js';

const PRIVATE = '/private-helpers';

/** The explorer's check in a JSON report, with the requirement of each finding. */
const exploreResult = (results: readonly { readonly id: string }[]) =>
  results.find((r) => r.id === 'explore-model') as
    | {
        readonly outcome: string;
        readonly findings: ReadonlyArray<{
          readonly outcome: string;
          readonly requirement?: string;
        }>;
      }
    | undefined;

describe.concurrent(
  'refunds of a payment whose earlier refunds finished, then the exact rest',
  () => {
    it(
      'refund-total-float, audited by URL with refunds moved on only through /sandbox/: REFUND-PARTIAL-ALLOWED',
      { timeout: 120_000 },
      async () => {
        const r = await auditByUrl({ faults: ['refund-total-float'] }, [
          '--explore-only',
          '--explore-seed',
          '3',
        ]);
        const explored = exploreResult(r.results);
        expect(explored?.outcome, r.out).toBe('fail');
        expect(explored?.findings.find((f) => f.outcome === 'fail')?.requirement).toBe(
          'REFUND-PARTIAL-ALLOWED',
        );
      },
    );

    it('the correct service, audited so: the explorer passes', { timeout: 120_000 }, async () => {
      const r = await auditByUrl({}, [
        '--explore-only',
        '--explore-seed',
        '3',
        '--explore-seconds',
        '4',
      ]);
      expect(notPassing(r.results)).toEqual([]);
      expect(r.verdict).toBe('pass');
    });

    it(
      'refund-total-float behind the starter state hook: REFUND-PARTIAL-ALLOWED',
      { timeout: 240_000 },
      async () => {
        const o = await searchFresh(async () => {
          const t = await startEmbeddedTarget({
            faults: ['refund-total-float'],
            sandboxPath: PRIVATE,
          });
          const hook = await startStarterHook(`${t.context.baseUrl}${PRIVATE}`);
          const context: ServerAuditContext = {
            ...t.context,
            stateHook: { url: hook.url },
            payments: { settled: [], unsettled: t.context.payments.unsettled },
          };
          return {
            context,
            close: async () => {
              await hook.stop();
              await t.close();
            },
          };
        });
        expect(o.error).toBeUndefined();
        expect(o.failure?.violation.judgement.requirement, exploreSummary(o)).toBe(
          'REFUND-PARTIAL-ALLOWED',
        );
        expect(o.cost.payments).toBeGreaterThan(0);
      },
    );
  },
);

// What the reference service receives from a whole `audit server` (the drawn forgeries on a short budget: every
// form's edge and a few drawn requests), recorded by a loopback proxy that passes every byte through: every request
// carries one valid W3C traceparent (version 00, flags 01), a span of its own, no signature covers it, and the audit
// passes. Against the service started with a fault, the JSON report names the trace id of each failing exchange, equal
// to the header the service received.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  auditTarget,
  startEmbeddedTarget,
  type AuditTarget,
} from '../cli/commands/audit-server.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import type { RunSummary } from '../conformance/run/result.js';
import { parseTraceparent } from '../conformance/http/trace-context.js';
import type { FaultName } from '../server/index.js';
import { validateAgainst } from '../src/schemas/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { withLightForgeries } from './fixtures/light-forgeries.js';
import {
  startRecordingProxy,
  type RecordedHead,
  type RecordingProxy,
} from './fixtures/recording-proxy.js';

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;
const VERSION_00 = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

const valuesOf = (head: RecordedHead, name: string): string[] =>
  head.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);

/** The embedded service with `faults`, audited through a recording proxy (Host and every byte as sent). */
async function auditThroughProxy(
  faults: readonly FaultName[],
  only?: readonly string[],
): Promise<{ summary: RunSummary; proxy: RecordingProxy }> {
  const embedded = await startEmbeddedTarget({ faults, webhookSigningKey });
  const proxy = await startRecordingProxy(embedded.service);
  const target: AuditTarget = withLightForgeries({
    ...embedded,
    context: { ...embedded.context, baseUrl: proxy.baseUrl },
  });
  try {
    const summary = await auditTarget(target, only !== undefined ? { only } : {});
    return { summary, proxy };
  } finally {
    await proxy.close();
    await embedded.close();
  }
}

describe('a default audit of the reference service: what the service received', () => {
  let summary: RunSummary;
  let proxy: RecordingProxy;
  beforeAll(async () => {
    ({ summary, proxy } = await auditThroughProxy([]));
  }, 90_000);

  it('passes: every check, as without the header', () => {
    expect(summary.results.filter((r) => r.outcome !== 'pass').map((r) => r.id)).toEqual([]);
  });

  it('every request carried exactly one traceparent, version 00, flags 01, ids not zero', () => {
    expect(proxy.unparsed).toBe(0);
    expect(proxy.heads.length).toBeGreaterThan(100);
    const bad = proxy.heads
      .map((h) => ({ line: h.requestLine, values: valuesOf(h, 'traceparent') }))
      .filter(
        ({ values }) =>
          values.length !== 1 ||
          !VERSION_00.test(values[0]!) ||
          parseTraceparent(values[0]!) === undefined,
      );
    expect(bad).toEqual([]);
  });

  it('each exchange is a span of its own; the requests of one check share its trace', () => {
    const parsed = proxy.heads.map((h) => parseTraceparent(valuesOf(h, 'traceparent')[0]!)!);
    expect(new Set(parsed.map((p) => p.parentId)).size).toBe(parsed.length);
    const traces = new Set(parsed.map((p) => p.traceId));
    // Fewer traces than requests (a check's requests share one), more than one (each check has its own).
    expect(traces.size).toBeGreaterThan(10);
    expect(traces.size).toBeLessThan(parsed.length);
  });

  it('no signature covers it: no Signature-Input names traceparent', () => {
    const inputs = proxy.heads.flatMap((h) => valuesOf(h, 'signature-input'));
    expect(inputs.length).toBeGreaterThan(20);
    expect(inputs.filter((v) => /traceparent/i.test(v))).toEqual([]);
  });
});

describe('a failing audit: the JSON report names the trace ids of its failing exchanges', () => {
  it('each failing finding with a request names the trace id of the traceparent the service received', async () => {
    const checks = ['path-changed-after-signing', 'authority-changed-after-signing'];
    const { summary, proxy } = await auditThroughProxy(['no-signature-check'], checks);
    const report = JSON.parse(renderJsonReport(summary)) as {
      results: ReadonlyArray<{
        id: string;
        outcome: string;
        findings: ReadonlyArray<{
          outcome: string;
          evidence?: { traceId?: string; request?: { headers: ReadonlyArray<[string, string]> } };
        }>;
      }>;
    };
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', report),
    ).toEqual({
      valid: true,
    });
    const received = new Set(proxy.heads.flatMap((h) => valuesOf(h, 'traceparent')));
    const failing = report.results
      .filter((r) => checks.includes(r.id))
      .flatMap((r) => {
        expect(r.outcome, r.id).toBe('fail');
        return r.findings.filter((f) => f.outcome === 'fail' && f.evidence?.request !== undefined);
      });
    expect(failing.length).toBeGreaterThanOrEqual(checks.length);
    for (const f of failing) {
      const sent = f.evidence!.request!.headers.filter(([n]) => n === 'traceparent');
      expect(sent).toHaveLength(1);
      // The very header the service received, and the report's trace id is its trace id.
      expect(received.has(sent[0]![1])).toBe(true);
      expect(f.evidence!.traceId).toBe(parseTraceparent(sent[0]![1])!.traceId);
    }
  }, 60_000);
});

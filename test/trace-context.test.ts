// W3C Trace Context (§3.2 traceparent) on payconform's requests, without a network: the ids' form, the parser against
// the spec's examples and its invalid cases, one trace per scope and one span per exchange; that the header is no
// covered component (a request signed before it was added verifies, and its signature base is the same bytes); and
// that the evidence, the HAR entry, the console and Markdown lines and the report schema name the trace id.
import { describe, expect, it } from 'vitest';
import { pass, violation, type Check } from '../conformance/run/check.js';
import { signCorrectly } from '../conformance/checks/server/forge.js';
import { runChecks } from '../conformance/run/engine.js';
import { ExchangeLog } from '../conformance/http/exchange-log.js';
import { evidenceView } from '../conformance/run/grade.js';
import { createRedactor } from '../conformance/report/redact.js';
import { findingText } from '../conformance/reporters/evidence-text.js';
import { toHar } from '../conformance/reporters/har.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderMarkdownReport } from '../conformance/reporters/markdown.js';
import { loadCatalogue } from '../conformance/requirements.js';
import {
  currentTraceId,
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  traceIdOf,
  traceparentForExchange,
  withTrace,
  withTraceparent,
} from '../conformance/http/trace-context.js';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { verifyRequest, type ApplicationRecord } from '../src/profile/verify-request.js';
import { validateAgainst } from '../src/schemas/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const catalogue = loadCatalogue();
const REPORT_SCHEMA_ID = 'https://payconform.dev/schemas/conformance-report.schema.json';
const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
// W3C Trace Context §3.2.3, the example value.
const EXAMPLE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('W3C Trace Context §3.2: the traceparent payconform writes', () => {
  it('version 00, a random 16-byte trace id and 8-byte span id in lowercase hex, flags 01', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const value = formatTraceparent(newTraceId(), newSpanId());
      expect(value).toMatch(VERSION_00);
      ids.add(value);
    }
    expect(ids.size).toBe(50);
  });

  it('parses the spec example, and later versions up to their flags (§3.2.4)', () => {
    expect(parseTraceparent(EXAMPLE)).toEqual({
      version: '00',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
      flags: '01',
    });
    expect(parseTraceparent(`cc${EXAMPLE.slice(2)}-what-the-future-holds`)?.traceId).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
  });

  it.each([
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', `ff${EXAMPLE.slice(2)}`],
    ['uppercase hex', EXAMPLE.toUpperCase()],
    ['version 00 with more after the flags', `${EXAMPLE}-00`],
    ['a later version whose extra part does not start with -', `cc${EXAMPLE.slice(2)}x`],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['no separators', EXAMPLE.replaceAll('-', '_')],
    ['empty', ''],
  ])('ignores %s', (_why, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('a request with several traceparent lines names no trace id', () => {
    expect(traceIdOf([['Traceparent', EXAMPLE]])).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(
      traceIdOf([
        ['traceparent', EXAMPLE],
        ['traceparent', EXAMPLE],
      ]),
    ).toBeUndefined();
  });
});

describe('a trace per scope (a check), a span per exchange', () => {
  const parts = (value: string): [string, string] => {
    const m = VERSION_00.exec(value);
    expect(m, value).not.toBeNull();
    return [m![1]!, m![2]!];
  };

  it('exchanges in one scope share its trace id, across awaits, each with a span of its own', async () => {
    const seen = await withTrace(async () => {
      const first = traceparentForExchange();
      await new Promise((r) => setImmediate(r));
      return [first, traceparentForExchange()] as const;
    });
    const [t1, s1] = parts(seen[0]);
    const [t2, s2] = parts(seen[1]);
    expect(t1).toBe(t2);
    expect(s1).not.toBe(s2);
  });

  it('two scopes (two checks) have two traces; outside any, each exchange is a trace of its own', async () => {
    const [a, b] = await Promise.all([
      withTrace(async () => parts(traceparentForExchange())[0]),
      withTrace(async () => parts(traceparentForExchange())[0]),
    ]);
    expect(a).not.toBe(b);
    expect(parts(traceparentForExchange())[0]).not.toBe(parts(traceparentForExchange())[0]);
  });

  it('the header goes after the request’s own lines, which are unchanged; one already there is kept as is', () => {
    const own = [
      ['content-type', 'application/json'],
      ['x-dup', 'one'],
    ] as const;
    const traced = withTrace(() => withTraceparent(own), '4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traced.slice(0, 2)).toEqual(own);
    expect(traced).toHaveLength(3);
    expect(traced[2]![0]).toBe('traceparent');
    expect(traced[2]![1]).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    const given = [...own, ['TraceParent', EXAMPLE]] as const;
    expect(withTraceparent(given)).toBe(given);
  });
});

describe('spec, Signed requests, Step 2: traceparent is not a covered component', () => {
  const key = loadTestKeys().clientEd25519;
  const credentials = {
    applicationId: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
    applicationSecret: 'test-only-application-secret',
    keyId: 'test-only-client-key-1',
    privateKey: key.privateKey,
  };
  const application: ApplicationRecord = {
    secret: credentials.applicationSecret,
    publicKeys: new Map([[credentials.keyId, key.publicKey]]),
  };
  const verify = (request: HttpRequest) =>
    verifyRequest(request, {
      nonceStore: new MemoryNonceStore(),
      resolveApplication: (id) => (id === credentials.applicationId ? application : undefined),
    });
  const request: HttpRequest = {
    method: 'POST',
    url: 'https://api.example.com/api/payouts',
    headers: toFieldLines({ 'content-type': 'application/vnd.service.v1.0+json' }),
    body: new TextEncoder().encode('{"amount":0.01}'),
  };

  it('a request signed and then given a traceparent verifies, over the same signature base', async () => {
    const signed = signCorrectly(request, credentials);
    const traced = { ...signed, headers: withTraceparent(signed.headers) };
    expect(traceIdOf(traced.headers)).toBeDefined();
    const [plain, withHeader] = await Promise.all([verify(signed), verify(traced)]);
    expect(withHeader).toMatchObject({ ok: true });
    expect(plain).toMatchObject({ ok: true });
    if (!plain.ok || !withHeader.ok) return;
    expect(withHeader.signatureBase).toBe(plain.signatureBase);
    expect(withHeader.signatureBase).not.toMatch(/traceparent/i);
  });

  it('the covered components are the spec’s eight, in order, and none of them is traceparent', () => {
    const signed = signCorrectly(
      { ...request, headers: withTraceparent(request.headers) },
      credentials,
    );
    const input = signed.headers.find(([n]) => n.toLowerCase() === 'signature-input')?.[1] ?? '';
    expect(/^sig1=\(([^)]*)\)/.exec(input)?.[1]).toBe(
      serviceProfile.componentNames.map((c) => `"${c}"`).join(' '),
    );
    expect(serviceProfile.componentNames).toEqual([
      '@method',
      '@path',
      '@authority',
      'content-digest',
      'content-type',
      'content-length',
      'x-application-id',
      'x-application-secret',
    ]);
  });
});

describe('the trace id in the evidence, the HAR entry, the reports and the report schema', () => {
  const sent = {
    method: 'POST',
    url: 'http://127.0.0.1:1/api/payouts',
    headers: [
      ['content-type', 'application/json'],
      ['traceparent', EXAMPLE],
    ] as const,
    body: new Uint8Array(0),
  };
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('the evidence view names it; a request without one names none', () => {
    expect(evidenceView({ request: sent }, createRedactor()).traceId).toBe(traceId);
    expect(
      evidenceView({ request: { ...sent, headers: [] } }, createRedactor()).traceId,
    ).toBeUndefined();
  });

  it('the HAR entry names it as _traceId', () => {
    const log = new ExchangeLog();
    log.add({
      direction: 'sent',
      startedAt: 0,
      durationMs: 1,
      timings: { connect: 0, send: 0, wait: 1, receive: 0 },
      request: sent,
    });
    log.add({
      direction: 'received',
      startedAt: 0,
      durationMs: 1,
      timings: { connect: -1, send: 0, wait: 1, receive: 0 },
      request: { ...sent, headers: [] },
    });
    const [withTrace, without] = toHar(log, { toolVersion: '0' }).log.entries;
    expect(withTrace?._traceId).toBe(traceId);
    expect(without).not.toHaveProperty('_traceId');
  });

  it('a run’s JSON report names it, validates, and refuses another form; console and Markdown lines show it', async () => {
    const summary = await runChecks({
      checks: [
        {
          id: 'traced',
          title: 'traced',
          area: 'signing',
          requirements: [catalogue.requirements.find((r) => r.level === 'MUST')!.id],
          level: 'MUST',
          appliesTo: 'server',
          run: async () => [violation('refused', { evidence: { request: sent } })],
        },
      ],
      context: null,
      role: 'server',
      target: 'http://127.0.0.1:1',
      toolVersion: '0',
      catalogue,
    });
    const report = JSON.parse(renderJsonReport(summary)) as {
      results: Array<{ findings: Array<{ evidence: { traceId: string } }> }>;
    };
    expect(report.results[0]!.findings[0]!.evidence.traceId).toBe(traceId);
    expect(validateAgainst(REPORT_SCHEMA_ID, report)).toEqual({ valid: true });
    report.results[0]!.findings[0]!.evidence.traceId = traceId.toUpperCase();
    expect(validateAgainst(REPORT_SCHEMA_ID, report).valid).toBe(false);
    const finding = summary.results[0]!.findings[0]!;
    expect(findingText(finding)).toContain(`trace id: ${traceId}`);
    expect(renderMarkdownReport(summary)).toContain(`trace \`${traceId}\``);
  });
});

describe('the engine runs each check in a trace of its own', () => {
  it('one trace id throughout a check, across awaits; another in the next check', async () => {
    const seen: Record<string, string[]> = {};
    const check = (id: string): Check<null> => ({
      id,
      title: id,
      area: 'signing',
      requirements: [catalogue.requirements[0]!.id],
      level: 'MUST',
      appliesTo: 'server',
      run: async () => {
        seen[id] = [currentTraceId() ?? ''];
        await new Promise((r) => setImmediate(r));
        seen[id]!.push(currentTraceId() ?? '');
        return [pass('ok')];
      },
    });
    await runChecks({
      checks: [check('first'), check('second')],
      context: null,
      role: 'server',
      target: 'http://127.0.0.1:1',
      toolVersion: '0',
      catalogue,
    });
    const [a1, a2] = seen.first!;
    const [b1, b2] = seen.second!;
    expect(a1).toMatch(/^[0-9a-f]{32}$/);
    expect(a2).toBe(a1);
    expect(b2).toBe(b1);
    expect(b1).not.toBe(a1);
  });
});

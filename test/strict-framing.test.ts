// The reference service's strict framing (its own choices, not rules the audits hold others to): more than one Host
// is a 400 (RFC 9112 §3.2), and so is a JSON body that repeats a member name (RFC 8259 §4: names SHOULD be unique),
// with a message naming it; the member scan itself on nested, escaped and hostile input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningReferenceService } from '../server/index.js';
import { findRepeatedMember } from '../net/json-members.js';
import { payoutBody, send, signed, startTestService } from './reference-service-client.js';

describe('findRepeatedMember (RFC 8259 §4)', () => {
  it('finds a repeated name with the JSON Pointer of its object, after unescaping', () => {
    expect(findRepeatedMember('{"amount":1.5,"amount":99999}')).toEqual({
      name: 'amount',
      pointer: '',
    });
    expect(findRepeatedMember('{"a":{"b":[1,{"c":1,"\\u0063":2}]}}')).toEqual({
      name: 'c',
      pointer: '/a/b/1',
    });
    expect(findRepeatedMember('{"x/y":{"k":"\\"k\\":","k":0}}')).toEqual({
      name: 'k',
      pointer: '/x~1y',
    });
  });

  it('passes unique names, the same name in sibling objects, and names that only appear as values', () => {
    for (const text of [
      '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}',
      '{"a":"a","b":["a","a"]}',
      '[{"a":1},{"a":1}]',
      '"just a string"',
      '{"a\\"":1,"a":2}',
    ])
      expect(findRepeatedMember(text), text).toBeUndefined();
  });

  it('scans deep nesting without recursion and long bodies in one pass (bounded)', () => {
    const deep = `${'['.repeat(100_000)}{"a":1,"a":2}${']'.repeat(100_000)}`;
    expect(findRepeatedMember(deep)?.name).toBe('a');
    const wide = `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    const started = performance.now();
    expect(findRepeatedMember(wide)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('reference service: strict framing (its choices)', () => {
  let service: RunningReferenceService;
  beforeAll(async () => {
    service = await startTestService({ log: () => {} });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('two Host field lines: 400, even when the first is the signed one (RFC 9112 §3.2)', async () => {
    const request = signed(service, '/api/payouts', payoutBody(service));
    const host = new URL(service.baseUrl).host;
    const answer = await send(service.baseUrl, {
      ...request,
      headers: [['host', host], ...request.headers!, ['host', 'evil.example']],
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers['x-payconform-error-code']).toBe('duplicate_header');
    expect(answer.json.errorMessage).toMatch(/"host" sent 2 times/);
    // The same request with one Host is accepted.
    expect((await send(service.baseUrl, request)).status).toBe(201);
  });

  it('a signed body repeating "amount": 400 naming the member, no payout created', async () => {
    const body = JSON.stringify(payoutBody(service)).replace(
      '"amount":10.5',
      '"amount":1.5,"amount":99999',
    );
    expect(body).toContain('"amount":1.5,"amount":99999');
    const answer = await send(service.baseUrl, signed(service, '/api/payouts', body));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers['x-payconform-error-code']).toBe('duplicate_json_member');
    expect(answer.json.errorMessage).toContain('"amount"');
  });
});

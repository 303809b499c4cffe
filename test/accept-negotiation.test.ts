// Accept on the reference service (RFC 9110 §12.5.1): a range with q=0 refuses that type, the most specific range
// names a type's weight, parameters other than q are ignored. Real HTTP over loopback to a started service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningReferenceService } from '../server/index.js';
import { payoutBody, send, signed, startTestService } from './reference-service-client.js';

let service: RunningReferenceService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

/** A signed create-payout with this Accept header (Accept is not a covered component). */
async function createWithAccept(accept: string): Promise<number> {
  const request = signed(service, '/api/payouts', payoutBody(service));
  const res = await send(service.baseUrl, {
    ...request,
    headers: [...(request.headers ?? []), ['accept', accept]],
  });
  return res.status;
}

describe('create payout: Accept negotiation honours q=0', () => {
  it.each([
    ['application/vnd.service.v1.0+json', 201],
    ['application/json', 201],
    ['*/*', 201],
    ['application/*', 201],
    ['text/html, application/json;q=0.5', 201],
    ['application/json; charset=utf-8', 201],
    ['application/vnd.service.v1.0+json;q=0.001', 201],
    ['application/vnd.service.v1.0+json;q=0, application/json;q=0', 406],
    ['application/vnd.service.v1.0+json;q=0, application/json;Q=0.000', 406],
    ['*/*;q=0', 406],
    ['application/*;q=0', 406],
    ['text/html', 406],
    // The most specific range wins: */* admits, but both offered types are named with q=0.
    ['*/*, application/vnd.service.v1.0+json;q=0, application/json;q=0', 406],
    // ...and an exact range with q>0 beside */*;q=0 admits that type.
    ['*/*;q=0, application/json', 201],
    ['application/*;q=0, application/vnd.service.v1.0+json;q=1.000', 201],
  ])('Accept: %s -> %i', async (accept, status) => {
    expect(await createWithAccept(accept)).toBe(status);
  });

  it('a 406 names the Accept header and what the service offers', async () => {
    const request = signed(service, '/api/payouts', payoutBody(service));
    const res = await send(service.baseUrl, {
      ...request,
      headers: [...(request.headers ?? []), ['accept', 'application/json;q=0']],
    });
    expect(res.status).toBe(406);
    expect(res.json.errorMessage).toContain(
      'admits none of application/vnd.service.v1.0+json, application/json',
    );
  });
});

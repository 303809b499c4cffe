// Test helpers for the reference service tests: a raw loopback HTTP client, a spec signer, and a webhook receiver.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ed25519PrivateKey } from '../src/ed25519/backend.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { signRequest } from '../src/profile/sign-request.js';
import { componentIdentifiers } from '../src/signatures/component-identifier.js';
import { signSignatureBase } from '../src/signatures/create-signature.js';
import { createSignatureBase } from '../src/signatures/signature-base.js';
import { serializeSignature } from '../src/signatures/signature-fields.js';
import {
  startReferenceService,
  type ApplicationConfig,
  type DeliveryRecord,
  type ReferenceServiceOptions,
  type RunningReferenceService,
} from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { until } from './fixtures/until.js';

export const PAYOUT_TYPE = 'application/vnd.service.v1.0+json';
export const REFUND_TYPE = 'application/vnd.service.v0.7+json';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Field lines sent exactly (duplicates kept). */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: Uint8Array | string;
}

/** Sends one request over loopback with exactly these field lines; 5 s timeout. */
export function send(baseUrl: string, request: RawRequest, timeoutMs = 5000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const flat: string[] = [];
  // With raw (array) headers Node adds no Host line: send the authority as the signer saw it, unless the test sets one.
  if (!(request.headers ?? []).some(([n]) => n.toLowerCase() === 'host'))
    flat.push('host', url.host);
  for (const [n, v] of request.headers ?? []) flat.push(n, v);
  const body =
    typeof request.body === 'string'
      ? Buffer.from(request.body)
      : Buffer.from(request.body ?? new Uint8Array());
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: flat,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no response within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}

export interface SignOverrides {
  readonly created?: number;
  readonly nonce?: string;
  readonly contentType?: string;
  readonly path?: string;
  readonly method?: string;
  readonly privateKey?: Ed25519PrivateKey;
  readonly keyId?: string;
  readonly secret?: string;
  readonly applicationId?: string;
}

/** A request signed by the spec (Authentication steps 1-5) with the service's first application's credentials. */
export function signed(
  service: RunningReferenceService,
  path: string,
  body: unknown,
  o: SignOverrides = {},
): RawRequest {
  const bytes =
    body === undefined
      ? new Uint8Array()
      : new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
  const method = o.method ?? 'POST';
  const headers: Array<[string, string]> = [];
  if (bytes.length > 0 || method === 'POST')
    headers.push(['content-type', o.contentType ?? PAYOUT_TYPE]);
  const creds = service.credentials;
  const { headers: added } = signRequest(
    { method, url: `${service.baseUrl}${path}`, headers, body: bytes },
    {
      applicationId: o.applicationId ?? creds.applicationId,
      applicationSecret: o.secret ?? creds.applicationSecret,
      keyId: o.keyId ?? creds.keyId,
      privateKey: o.privateKey ?? loadTestKeys().clientEd25519.privateKey,
    },
    {
      ...(o.created !== undefined ? { created: o.created } : {}),
      ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
    },
  );
  return { method, path, headers: [...headers, ...Object.entries(added)], body: bytes };
}

/** A valid create-payout body for the first application. */
export function payoutBody(
  service: RunningReferenceService,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const { destinationType, accountType, holderName, accountNumber, sortCode, iban } =
    service.copDestinations.FULL_MATCH;
  return {
    applicationId: service.credentials.applicationId,
    payInAccountSelector: service.credentials.payInAccountSelector,
    amount: 10.5,
    reference: 'INV-1',
    destination: { destinationType, accountType, holderName, accountNumber, sortCode, iban },
    ...overrides,
  };
}

/** Plain application headers (commit, cancel, refund). */
export function appHeaders(
  service: RunningReferenceService,
  contentType?: string,
): Array<[string, string]> {
  return [
    ['x-application-id', service.credentials.applicationId],
    ['x-application-secret', service.credentials.applicationSecret],
    ...(contentType !== undefined
      ? ([['content-type', contentType]] as Array<[string, string]>)
      : []),
  ];
}

/** The test-only application (TEST ONLY secret and key: committed on purpose). */
export function testApplication(): ApplicationConfig {
  const keys = loadTestKeys();
  return {
    applicationId: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    applicationSecret: 'test-only-secret-0123456789',
    keyId: 'test-only-key-1',
    publicKey: keys.clientEd25519.publicKey,
    privateKey: keys.clientEd25519.privateKey,
    merchantId: 'a1b2c3d4-0000-4000-8000-000000000001',
  };
}

/** Starts the service with the test-only client and webhook keys. */
export function startTestService(
  options: Partial<ReferenceServiceOptions> = {},
): Promise<RunningReferenceService> {
  return startReferenceService({
    applications: [testApplication()],
    webhookSigningKey: loadTestKeys().webhookRsa.privatePem,
    ...options,
  });
}

/**
 * Waits (bounded) until every delivery this service queued, or those of `resourceId`, has finished: delivered, failed
 * for good or sent nowhere, so no attempt of them is still to come. Returns them. The state the queue reaches, not a
 * guess at how long its attempts take.
 */
export function deliveriesFinished(
  service: RunningReferenceService,
  resourceId?: string,
  limitMs = 10_000,
): Promise<readonly DeliveryRecord[]> {
  return until(
    `every delivery ${resourceId ?? 'of the service'} finished`,
    () => {
      const records = service
        .deliveries()
        .filter((d) => resourceId === undefined || d.resourceId === resourceId);
      return records.length > 0 && records.every((d) => d.state !== 'pending') && records;
    },
    limitMs,
  );
}

export interface ReceivedWebhook {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * A loopback webhook receiver: records every request; answers with `statuses` in turn (then 200), or with
 * `statuses(body)` when it is a function.
 */
export async function startReceiver(
  statuses: readonly number[] | ((body: Buffer) => number) = [],
): Promise<{
  url: string;
  received: ReceivedWebhook[];
  waitFor: (
    predicate: (all: readonly ReceivedWebhook[]) => boolean,
    timeoutMs?: number,
  ) => Promise<void>;
  close: () => Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(typeof statuses === 'function' ? statuses(body) : (statuses[n++] ?? 200)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor: async (predicate, timeoutMs = 5000) => {
      const end = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > end)
          throw new Error(`webhooks not received in ${timeoutMs} ms (got ${received.length})`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export interface CustomSignature {
  readonly label?: string;
  readonly components?: readonly string[];
  /** Signature parameters in order (default created, keyid, alg "ed25519", nonce). */
  readonly params?: ReadonlyArray<readonly [string, string | number]>;
}

/** A create-payout request signed with deliberately non-profile choices (label, components, parameters), for fault tests. */
export function signedCustom(
  service: RunningReferenceService,
  path: string,
  body: unknown,
  custom: CustomSignature,
): RawRequest {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const creds = service.credentials;
  const headers: Array<[string, string]> = [
    ['content-type', PAYOUT_TYPE],
    ['x-application-id', creds.applicationId],
    ['x-application-secret', creds.applicationSecret],
    ['content-digest', computeContentDigest(bytes, ['sha-512'])],
    ['content-length', String(bytes.length)],
  ];
  const params = new Map<string, string | number>(
    custom.params ?? [
      ['created', Math.floor(Date.now() / 1000)],
      ['keyid', creds.keyId],
      ['alg', 'ed25519'],
      ['nonce', randomUUID()],
    ],
  );
  const base = createSignatureBase(
    { method: 'POST', url: `${service.baseUrl}${path}`, headers, body: bytes },
    componentIdentifiers(custom.components ?? serviceProfile.componentNames),
    params,
    serviceProfile.signatureBaseOptions,
  );
  if (!base.ok) throw new Error(base.message);
  const label = custom.label ?? 'sig1';
  const signature = signSignatureBase(
    base.base,
    loadTestKeys().clientEd25519.privateKey,
    nodeBackend,
  );
  return {
    method: 'POST',
    path,
    headers: [
      ...headers,
      ['signature-input', `${label}=${base.signatureParams}`],
      ['signature', serializeSignature(new Map([[label, signature]]))],
    ],
    body: bytes,
  };
}

// Proves schemas/openapi.json is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator with
// the referenced schema files added so every $ref resolves), that it describes every endpoint and webhook of the
// spec, and that every payload schema file is reachable from it.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { payloadKinds } from '../src/schemas/index.js';

const schemasDir = fileURLToPath(new URL('../schemas/', import.meta.url));
const read = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`${schemasDir}${file}`, 'utf8')) as Record<string, unknown>;
const openapi = read('openapi.json');

/** Every $ref string in a JSON value. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}

/** The schema files reachable from openapi.json by following relative $refs, file by file. */
function reachableFiles(): Set<string> {
  const seen = new Set<string>();
  const queue = refsIn(openapi);
  while (queue.length > 0) {
    const ref = queue.pop()!;
    const file = ref.split('#')[0]!;
    if (file === '' || seen.has(file)) continue;
    expect(file, `relative reference ${ref}`).toMatch(/^[a-z0-9.-]+\.schema\.json$/);
    seen.add(file);
    queue.push(...refsIn(read(file)));
  }
  return seen;
}

/** The payload schema files: common definitions, and a permissive and a strict schema per payload kind. */
function payloadSchemaFiles(): string[] {
  const files = [
    'common.schema.json',
    ...payloadKinds.flatMap((k) => [`${k}.schema.json`, `${k}.strict.schema.json`]),
  ];
  const present = new Set(readdirSync(schemasDir));
  for (const file of files) expect(present.has(file), file).toBe(true);
  return files;
}

describe('schemas/openapi.json', () => {
  it('validates as OpenAPI 3.1 with every referenced schema file added', async () => {
    const validator = new Validator();
    for (const file of reachableFiles())
      await validator.addSpecRef(structuredClone(read(file)), file);
    const result = await validator.validate(structuredClone(openapi));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('an unresolvable reference makes it fail (the check above is not vacuous)', async () => {
    const validator = new Validator();
    const broken = structuredClone(openapi) as { components: { schemas: Record<string, unknown> } };
    broken.components.schemas['Broken'] = { $ref: 'missing.schema.json' };
    const result = await validator.validate(broken);
    expect(result.valid).toBe(false);
  });

  it('every payload schema file (permissive and strict, and common) is reachable from it', () => {
    const reachable = reachableFiles();
    for (const file of payloadSchemaFiles()) expect(reachable.has(file), file).toBe(true);
  });

  it('describes every endpoint of the spec with its media type and headers', () => {
    const paths = openapi['paths'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(paths).sort()).toEqual([
      '/.well-known/signature/pem',
      '/api/merchants/{merchantId}/applications/{applicationId}/refunds',
      '/api/payouts',
      '/api/payouts/{payoutId}/cancel',
      '/api/payouts/{payoutId}/commit',
    ]);
    const text = JSON.stringify(openapi);
    const create = paths['/api/payouts']!['post']!;
    expect(JSON.stringify(create['parameters'])).toContain('SignatureInput');
    expect(Object.keys((create['requestBody'] as { content: object }).content)).toEqual([
      'application/vnd.service.v1.0+json',
    ]);
    const refund =
      paths['/api/merchants/{merchantId}/applications/{applicationId}/refunds']!['post']!;
    expect(Object.keys((refund['requestBody'] as { content: object }).content)).toEqual([
      'application/vnd.service.v0.7+json',
    ]);
    expect(Object.keys(refund['responses'] as object)).toEqual(
      expect.arrayContaining(['2XX', '422', '4XX', '5XX']),
    );
    const pem = paths['/.well-known/signature/pem']!['get']!;
    expect(
      Object.keys((pem['responses'] as Record<string, { content: object }>)['2XX']!.content),
    ).toEqual(['text/plain']);
    for (const header of [
      'x-application-id',
      'x-application-secret',
      'x-app-name',
      'Content-Digest',
      'Signature-Input',
      'Signature',
      'Authorization',
    ]) {
      expect(text).toContain(`"name": "${header}"`.replace(': ', ':'));
    }
  });

  it('describes the three webhooks as PUT with application/json bodies and the Authorization signature', () => {
    const webhooks = openapi['webhooks'] as Record<
      string,
      {
        put: {
          requestBody: { content: Record<string, { schema: { $ref: string } }> };
          security: unknown;
        };
      }
    >;
    expect(Object.keys(webhooks).sort()).toEqual([
      'paymentWebhook',
      'payoutWebhook',
      'refundWebhook',
    ]);
    for (const [name, file] of [
      ['paymentWebhook', 'payment-webhook'],
      ['payoutWebhook', 'payout-webhook'],
      ['refundWebhook', 'refund-webhook'],
    ] as const) {
      expect(webhooks[name]!.put.requestBody.content['application/json']!.schema.$ref).toBe(
        `${file}.schema.json`,
      );
      expect(webhooks[name]!.put.security).toEqual([{ webhookSignature: [] }]);
    }
  });
});

// Vendoring vectors/ alone (as JSON-Schema-Test-Suite users do) keeps everything needed: the index lists every file,
// payload vectors included, and names each schema by a path inside vectors/. Checked with a fresh JSON Schema
// 2020-12 validator that sees only a copy of the folder, never this project's schema registry.
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const vendored = join(mkdtempSync(join(tmpdir(), 'payconform-vendored-')), 'vectors');
cpSync(join(root, 'vectors'), vendored, {
  recursive: true,
  filter: (src) =>
    !/[/\\](?:build|harness|adapters|node_modules)$/.test(src) && !src.endsWith('.ts'),
});
const read = (path: string): any => JSON.parse(readFileSync(join(vendored, path), 'utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any

interface Index {
  files: Array<{ path: string; cases: number }>;
  totalCases: number;
  schemas: Record<string, string>;
  payloads: Array<{
    path: string;
    kind: string;
    schema: string;
    strictSchema: string;
    cases: number;
    valid: number;
    invalid: number;
  }>;
  totalPayloadCases: number;
  formats: { vectors: string; payloadVectors: string };
}

describe('vectors/ vendored alone', () => {
  const index = read('index.json') as Index;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  for (const path of Object.values(index.schemas)) ajv.addSchema(read(path));

  it('the index names a schema path inside vectors/ for every schema, and each file declares that $id', () => {
    expect(Object.keys(index.schemas).length).toBeGreaterThan(20);
    for (const [id, path] of Object.entries(index.schemas)) expect(read(path).$id, path).toBe(id);
  });

  it('index.json, keys.json and every vector file validate against the vendored vectors schema', () => {
    const validate = ajv.getSchema(index.formats.vectors)!;
    for (const path of ['index.json', 'keys.json', ...index.files.map((f) => f.path)]) {
      expect(validate(read(path)), `${path}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(
        true,
      );
    }
    expect(index.files.reduce((n, f) => n + f.cases, 0)).toBe(index.totalCases);
  });

  it('lists every payload vector file, whose format validates against the vendored payload-vectors schema', () => {
    const validate = ajv.getSchema(index.formats.payloadVectors)!;
    expect(index.payloads.map((p) => p.kind).sort()).toEqual([
      'account',
      'error',
      'payment-webhook',
      'payout',
      'payout-create-request',
      'payout-destination',
      'payout-webhook',
      'refund',
      'refund-request',
      'refund-webhook',
    ]);
    let total = 0;
    for (const p of index.payloads) {
      const file = read(p.path);
      expect(validate(file), `${p.path}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(
        true,
      );
      expect(file.cases.length).toBe(p.cases);
      total += p.cases;
    }
    expect(total).toBe(index.totalPayloadCases);
  });

  it('each payload case is valid or invalid against its vendored schema, as labelled', () => {
    for (const p of index.payloads) {
      const file = read(p.path);
      for (const c of file.cases) {
        const validate = ajv.getSchema(c.schema ?? p.schema);
        expect(validate, `${c.id}: schema ${c.schema ?? p.schema} is vendored`).toBeDefined();
        expect(validate!(c.payload), c.id).toBe(c.result === 'valid');
      }
    }
  });

  it('the format schema can fail: an invalid case without expectedErrors is refused', () => {
    const validate = ajv.getSchema(index.formats.payloadVectors)!;
    const file = read(index.payloads[0]!.path);
    const broken = {
      ...file,
      cases: [
        {
          ...file.cases.find((c: { result: string }) => c.result === 'invalid'),
          expectedErrors: undefined,
        },
      ],
    };
    expect(validate(JSON.parse(JSON.stringify(broken)))).toBe(false);
  });
});

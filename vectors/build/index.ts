// Builds every generated file of the vector set in memory: the generator writes them, the drift test compares them.
import type { VectorFile } from '../format.js';
import { check, GENERATED_BY, SCHEMA_ID, serializeJson } from './common.js';
import { buildContentDigestFile } from './content-digest.js';
import { buildKeyParsingFile } from './key-parsing.js';
import { buildKeysFile, vectorKeys } from './keys.js';
import { buildRequestSigningFile } from './request-signing.js';
import { callerA } from './requests.js';
import { buildRfc9421File } from './rfc.js';
import { buildRfc9530File } from './rfc9530.js';
import { vectorsSchema } from './schema-source.js';
import { buildSignatureBaseFile } from './signature-base.js';
import { buildWebhookFile } from './webhook-signatures.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildPayloadVectors,
  payloadVectorText,
  type PayloadVectorFile,
} from '../payloads/generate.js';
import { currentRelease, sha256Hex } from './releases.js';
import { PAYLOAD_VECTORS_SCHEMA_ID, payloadVectorsSchema } from './payload-schema-source.js';

const schemasDir = fileURLToPath(new URL('../../schemas/', import.meta.url));

/**
 * The payload schemas the payload vectors name, with the schemas they reference (common, account, destination):
 * every `*.schema.json` of schemas/ except this project's own formats (reports, configs) and OpenAPI.
 */
function payloadSchemaFiles(): string[] {
  const own = new Set([
    'baseline.schema.json',
    'conformance-config.schema.json',
    'conformance-report.schema.json',
    'reference-service-config.schema.json',
    'request.schema.json',
    'vectors.schema.json',
    'payload-vectors.schema.json',
  ]);
  return readdirSync(schemasDir)
    .filter((n) => n.endsWith('.schema.json') && !own.has(n))
    .sort();
}

/** Repository-relative path → exact file text. */
export type GeneratedFiles = ReadonlyMap<string, string>;

export async function buildVectorFiles(): Promise<GeneratedFiles> {
  const vk = vectorKeys();
  const keys = buildKeysFile(vk);
  const files: VectorFile[] = [
    buildContentDigestFile(),
    buildSignatureBaseFile(callerA(vk.clientA)),
    await buildRequestSigningFile(keys, vk),
    buildWebhookFile(keys),
    buildKeyParsingFile(keys),
    buildRfc9421File(keys),
    buildRfc9530File(),
  ];
  checkUniqueCaseIds(files);
  const schemaTexts = schemaFileTexts();
  const payloads = Object.values(buildPayloadVectors());
  // Every file the set is made of, as its exact text: the index records a SHA-256 of each (README "Versions").
  const texts = new Map<string, string>([
    ['keys.json', serializeJson(keys)],
    ...files.map((f) => [`${f.name}.json`, serializeJson(f)] as const),
    ...payloads.map((p) => [`payloads/${p.kind}.json`, payloadVectorText(p)] as const),
    ...schemaTexts,
  ]);
  const out = new Map<string, string>();
  out.set('schemas/vectors.schema.json', serializeJson(vectorsSchema));
  out.set('schemas/payload-vectors.schema.json', serializeJson(payloadVectorsSchema));
  // Copies inside vectors/ (byte-identical, guarded by the drift test) so the folder is self-contained.
  for (const [path, text] of schemaTexts) out.set(`vectors/${path}`, text);
  out.set('vectors/index.json', serializeJson(buildIndex(files, payloads, texts)));
  out.set('vectors/keys.json', serializeJson(keys));
  for (const f of files) out.set(`vectors/${f.name}.json`, serializeJson(f));
  return out;
}

/** A case id is unique across every vector file. */
function checkUniqueCaseIds(files: readonly VectorFile[]): void {
  const seen = new Map<string, string>();
  for (const file of files) {
    for (const c of file.cases) {
      check(!seen.has(c.id), c.id, `case id used in both ${seen.get(c.id) ?? ''} and ${file.name}`);
      seen.set(c.id, file.name);
    }
  }
}

/** The set's schemas by path under the set: its two formats, then every payload schema as schemas/ holds it. */
function schemaFileTexts(): Map<string, string> {
  return new Map<string, string>([
    ['schemas/vectors.schema.json', serializeJson(vectorsSchema)],
    ['schemas/payload-vectors.schema.json', serializeJson(payloadVectorsSchema)],
    ...payloadSchemaFiles().map(
      (n) => [`schemas/${n}`, readFileSync(`${schemasDir}${n}`, 'utf8')] as const,
    ),
  ]);
}

/** vectors/index.json: the files in reading order with their counts, the schemas by `$id`, the SHA-256 of each text. */
function buildIndex(
  files: readonly VectorFile[],
  payloads: readonly PayloadVectorFile[],
  texts: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const count = (cases: readonly { result: string }[], r: string): number =>
    cases.filter((c) => c.result === r).length;
  return {
    $schema: `${SCHEMA_ID}#/$defs/indexFile`,
    schemaVersion: 1,
    version: currentRelease().version,
    description:
      'The payconform vector set: read keys.json, then each file in this order; payload vectors under payloads/. Format: README.md and payloads/README.md; schemas (with every payload schema) under schemas/ here, so vendoring this folder alone keeps them. `version` is the version of the set of cases (semver, README "Versions and releases"); `sha256` is the SHA-256 of every file of the set.',
    generatedBy: GENERATED_BY,
    keys: 'keys.json',
    files: files.map((f) => ({
      path: `${f.name}.json`,
      cases: f.cases.length,
      valid: count(f.cases, 'valid'),
      invalid: count(f.cases, 'invalid'),
      acceptable: count(f.cases, 'acceptable'),
    })),
    totalCases: files.reduce((n, f) => n + f.cases.length, 0),
    schemas: Object.fromEntries([
      [SCHEMA_ID, 'schemas/vectors.schema.json'],
      [PAYLOAD_VECTORS_SCHEMA_ID, 'schemas/payload-vectors.schema.json'],
      ...payloadSchemaFiles().map((n) => [`https://payconform.dev/schemas/${n}`, `schemas/${n}`]),
    ]),
    payloads: payloads.map((p) => ({
      path: `payloads/${p.kind}.json`,
      kind: p.kind,
      schema: p.schema,
      strictSchema: p.strictSchema,
      cases: p.cases.length,
      valid: count(p.cases, 'valid'),
      invalid: count(p.cases, 'invalid'),
    })),
    totalPayloadCases: payloads.reduce((n, p) => n + p.cases.length, 0),
    formats: { vectors: SCHEMA_ID, payloadVectors: PAYLOAD_VECTORS_SCHEMA_ID },
    sha256: Object.fromEntries(
      [...texts.keys()].sort().map((path) => [path, sha256Hex(texts.get(path)!)]),
    ),
  };
}

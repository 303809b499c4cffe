// Builds every generated file of the vector set in memory: the generator writes them, the drift test compares them.
import type { VectorFile } from '../format.js';
import { check, GENERATED_BY, SCHEMA_ID, serializeJson } from './common.js';
import { buildContentDigestFile } from './content-digest.js';
import { buildKeyParsingFile } from './key-parsing.js';
import { buildKeysFile, vectorKeys } from './keys.js';
import { buildRequestSigningFile } from './request-signing.js';
import { callerA } from './requests.js';
import { buildRfc9421File, buildRfc9530File } from './rfc.js';
import { vectorsSchema } from './schema-source.js';
import { buildSignatureBaseFile } from './signature-base.js';
import { buildWebhookFile } from './webhook-signatures.js';

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
  const seen = new Map<string, string>();
  for (const file of files) {
    for (const c of file.cases) {
      check(!seen.has(c.id), c.id, `case id used in both ${seen.get(c.id) ?? ''} and ${file.name}`);
      seen.set(c.id, file.name);
    }
  }
  const count = (f: VectorFile, r: string): number => f.cases.filter((c) => c.result === r).length;
  const index = {
    $schema: `${SCHEMA_ID}#/$defs/indexFile`,
    schemaVersion: 1,
    description: 'The payconform vector set: read keys.json, then each file in this order. Format: vectors/README.md; schema: schemas/vectors.schema.json.',
    generatedBy: GENERATED_BY,
    keys: 'keys.json',
    files: files.map((f) => ({ path: `${f.name}.json`, cases: f.cases.length, valid: count(f, 'valid'), invalid: count(f, 'invalid'), acceptable: count(f, 'acceptable') })),
    totalCases: files.reduce((n, f) => n + f.cases.length, 0),
  };
  const out = new Map<string, string>();
  out.set('schemas/vectors.schema.json', serializeJson(vectorsSchema));
  out.set('vectors/index.json', serializeJson(index));
  out.set('vectors/keys.json', serializeJson(keys));
  for (const f of files) out.set(`vectors/${f.name}.json`, serializeJson(f));
  return out;
}

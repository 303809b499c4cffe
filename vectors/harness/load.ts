// Reads the vector set (index.json, keys.json and the files it lists) and turns cases into harness messages,
// resolving key references so that an adapter never has to read keys.json itself.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validateAgainst } from '../../src/schemas/validator.js';
import type { KeyMaterial, KeyRef, KeysFile, VectorCase, VectorFile } from '../format.js';

const SCHEMA_ID = 'https://payconform.dev/schemas/vectors.schema.json';

export interface VectorIndex {
  readonly schemaVersion: 1;
  readonly keys: string;
  readonly files: ReadonlyArray<{ readonly path: string; readonly cases: number }>;
}

export interface LoadedCase {
  readonly file: string;
  readonly vector: VectorCase;
}

export interface VectorSet {
  readonly keys: KeysFile;
  readonly files: readonly VectorFile[];
  readonly cases: readonly LoadedCase[];
}

/** Reads a JSON file and validates it against the vector schema; throws with the file name and the first violations. */
async function readJson(path: string, read: (path: string) => Promise<string>): Promise<unknown> {
  const value = JSON.parse(await read(path)) as unknown;
  const result = validateAgainst(SCHEMA_ID, value);
  if (!result.valid) {
    const detail = result.errors
      .slice(0, 3)
      .map((e) => `${e.pointer || '/'} ${e.message}`)
      .join('; ');
    throw new Error(`${path} does not match ${SCHEMA_ID}: ${detail}`);
  }
  return value;
}

/**
 * Loads every file listed in `dir/index.json`, each read by `read` (the file system unless given: the single executable
 * reads its embedded copy). Throws with the file name when one is missing, not JSON or not schema-valid.
 */
export async function loadVectorSet(
  dir: string,
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<VectorSet> {
  const index = (await readJson(join(dir, 'index.json'), read)) as VectorIndex;
  const keys = (await readJson(join(dir, index.keys), read)) as KeysFile;
  const files: VectorFile[] = [];
  const cases: LoadedCase[] = [];
  for (const entry of index.files) {
    const file = (await readJson(join(dir, entry.path), read)) as VectorFile;
    files.push(file);
    for (const vector of file.cases) cases.push({ file: entry.path, vector });
  }
  return { keys, files, cases };
}

/** The key text for a reference; throws when keys.json lacks it (a broken vector set, not an adapter failure). */
export function resolveKey(keys: KeysFile, ref: KeyRef): KeyMaterial {
  const entry = keys.keys[ref.key];
  if (!entry) throw new Error(`keys.json has no key "${ref.key}"`);
  const forms: Record<string, string | undefined> = { ...entry.public, ...(entry.private ?? {}) };
  const value = forms[ref.format];
  if (value === undefined)
    throw new Error(`keys.json key "${ref.key}" has no "${ref.format}" form`);
  return { format: ref.format, value };
}

function resolveVerifier(keys: KeysFile, name: string): unknown {
  const apps = keys.verifiers[name];
  if (!apps) throw new Error(`keys.json has no verifier "${name}"`);
  return {
    applications: apps.map((app) => ({
      applicationId: app.applicationId,
      applicationSecret: app.applicationSecret,
      keys: app.keys.map((k) => ({ keyId: k.keyId, publicKey: resolveKey(keys, k.publicKey) })),
    })),
  };
}

/** The `input` object sent to the adapter for a case: the file's input with references resolved. */
export function messageInput(keys: KeysFile, vector: VectorCase): Record<string, unknown> {
  switch (vector.op) {
    case 'sign':
      return {
        ...vector.input,
        credentials: {
          ...vector.input.credentials,
          privateKey: resolveKey(keys, vector.input.credentials.privateKey),
        },
      };
    case 'verify':
      return { ...vector.input, verifier: resolveVerifier(keys, vector.input.verifier) };
    case 'webhook-verify':
      return { ...vector.input, publicKey: resolveKey(keys, vector.input.publicKey) };
    case 'rfc9421-signature-base':
    case 'rfc9421-verify': {
      const { publicKey, ...rest } = vector.input;
      return publicKey ? { ...rest, publicKey: resolveKey(keys, publicKey) } : rest;
    }
    default:
      return { ...vector.input };
  }
}

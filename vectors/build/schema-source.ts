// Source of schemas/vectors.schema.json: written as a TS object so that the generator emits it with the same
// deterministic formatting as the vector files (and the drift test guards it too).
import {
  id,
  str,
  nonEmpty,
  base64,
  closed,
  bodyProps,
  bodyChoice,
  opCase,
} from './schema-helpers.js';
import { operationDefs } from './schema-operation-defs.js';

export const vectorsSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: id,
  title: 'payconform test vector file',
  description:
    "The files of payconform's language-neutral test vectors for the payments service signing profile (RFC 9421 Ed25519 request signatures, RFC 9530 Content-Digest, SHA256withRSA webhooks, key parsing): a vector file (`#/$defs/vectorFile`), keys.json (`#/$defs/keysFile`) or index.json (`#/$defs/indexFile`), told apart by their `$schema` value. Format documented in vectors/README.md.",
  type: 'object',
  // One schema for the three kinds of file, chosen by their `$schema` value (keys.json and index.json name a $defs entry).
  if: {
    type: 'object',
    properties: { $schema: { const: `${id}#/$defs/keysFile` } },
    required: ['$schema'],
  },
  then: { $ref: '#/$defs/keysFile' },
  else: {
    if: {
      type: 'object',
      properties: { $schema: { const: `${id}#/$defs/indexFile` } },
      required: ['$schema'],
    },
    then: { $ref: '#/$defs/indexFile' },
    else: { $ref: '#/$defs/vectorFile' },
  },
  $defs: {
    caseId: {
      description:
        'Stable, readable case id: lowercase words joined by "-"; never renumbered or reused.',
      type: 'string',
      pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
      maxLength: 100,
    },
    flag: {
      description: "A flag name, explained in the file's `notes`.",
      type: 'string',
      pattern: '^[A-Z][A-Za-z0-9]*$',
    },
    headers: {
      description:
        'Field lines exactly as sent, in order, as [name, value] pairs; a name may repeat.',
      type: 'array',
      items: { type: 'array', prefixItems: [nonEmpty, str], items: false, minItems: 2 },
    },
    body: closed(bodyProps, [], bodyChoice),
    request: closed(
      { method: nonEmpty, url: nonEmpty, headers: { $ref: '#/$defs/headers' }, ...bodyProps },
      ['method', 'url', 'headers'],
      bodyChoice,
    ),
    keyRef: closed(
      {
        key: { description: 'A key name in keys.json.', ...nonEmpty },
        format: {
          enum: [
            'seed-base64',
            'pkcs8-pem',
            'pkcs8-der-base64',
            'raw-base64',
            'spki-pem',
            'spki-der-base64',
            'trimmed-pem',
          ],
        },
      },
      ['key', 'format'],
    ),
    ...operationDefs,
    case: {
      type: 'object',
      properties: {
        id: { $ref: '#/$defs/caseId' },
        op: {
          enum: [
            'digest',
            'signature-base',
            'sign',
            'verify',
            'webhook-verify',
            'parse-key',
            'rfc9421-signature-base',
            'rfc9421-verify',
          ],
        },
        description: nonEmpty,
        source: {
          description: 'The clause checked: "spec: <section>" or "RFC nnnn <clause>".',
          ...nonEmpty,
        },
        result: { enum: ['valid', 'invalid', 'acceptable'] },
        flags: { type: 'array', items: { $ref: '#/$defs/flag' }, uniqueItems: true },
        comment: nonEmpty,
        input: { type: 'object' },
        expected: { type: 'object' },
      },
      required: ['id', 'op', 'description', 'source', 'result', 'flags', 'input', 'expected'],
      additionalProperties: false,
      allOf: [
        opCase('digest', 'digestInput', 'digestExpected'),
        opCase('signature-base', 'signatureBaseInput', 'signatureBaseExpected'),
        opCase('sign', 'signInput', 'signExpected'),
        opCase('verify', 'verifyInput', 'verifyExpected'),
        opCase('webhook-verify', 'webhookVerifyInput', 'webhookVerifyExpected'),
        opCase('parse-key', 'parseKeyInput', 'parseKeyExpected'),
        opCase('rfc9421-signature-base', 'rfc9421Input', 'rfc9421BaseExpected'),
        opCase('rfc9421-verify', 'rfc9421Input', 'rfc9421VerifyExpected'),
      ],
    },
    vectorFile: closed(
      {
        $schema: { const: id },
        schemaVersion: { const: 1 },
        name: { type: 'string', pattern: '^[a-z0-9-]+(/[a-z0-9-]+)?$' },
        title: nonEmpty,
        description: nonEmpty,
        generatedBy: nonEmpty,
        keys: { const: 'keys.json' },
        notes: {
          type: 'object',
          propertyNames: { $ref: '#/$defs/flag' },
          additionalProperties: closed({ description: nonEmpty, effect: nonEmpty }, [
            'description',
          ]),
        },
        numberOfCases: { type: 'integer', minimum: 1 },
        cases: { type: 'array', items: { $ref: '#/$defs/case' }, minItems: 1 },
      },
      [
        '$schema',
        'schemaVersion',
        'name',
        'title',
        'description',
        'generatedBy',
        'keys',
        'notes',
        'numberOfCases',
        'cases',
      ],
    ),
    keysFile: closed(
      {
        $schema: { const: `${id}#/$defs/keysFile` },
        schemaVersion: { const: 1 },
        warning: nonEmpty,
        testOnly: { const: true },
        generatedBy: nonEmpty,
        keys: {
          type: 'object',
          additionalProperties: {
            oneOf: [
              closed(
                {
                  type: { const: 'ed25519' },
                  testOnly: { const: true },
                  description: nonEmpty,
                  public: closed(
                    {
                      'raw-base64': base64,
                      'spki-pem': nonEmpty,
                      'spki-der-base64': base64,
                      'trimmed-pem': nonEmpty,
                    },
                    ['raw-base64', 'spki-pem', 'spki-der-base64', 'trimmed-pem'],
                  ),
                  private: closed(
                    { 'seed-base64': base64, 'pkcs8-pem': nonEmpty, 'pkcs8-der-base64': base64 },
                    ['seed-base64', 'pkcs8-pem', 'pkcs8-der-base64'],
                  ),
                },
                ['type', 'testOnly', 'description', 'public'],
              ),
              closed(
                {
                  type: { const: 'rsa' },
                  testOnly: { const: true },
                  description: nonEmpty,
                  public: closed(
                    { 'spki-pem': nonEmpty, 'spki-der-base64': base64, 'trimmed-pem': nonEmpty },
                    ['spki-pem', 'spki-der-base64', 'trimmed-pem'],
                  ),
                  private: closed({ 'pkcs8-pem': nonEmpty }, ['pkcs8-pem']),
                },
                ['type', 'testOnly', 'description', 'public'],
              ),
            ],
          },
        },
        verifiers: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: closed(
              {
                applicationId: nonEmpty,
                applicationSecret: str,
                keys: {
                  type: 'array',
                  items: closed({ keyId: nonEmpty, publicKey: { $ref: '#/$defs/keyRef' } }, [
                    'keyId',
                    'publicKey',
                  ]),
                },
              },
              ['applicationId', 'applicationSecret', 'keys'],
            ),
          },
        },
      },
      ['$schema', 'schemaVersion', 'warning', 'testOnly', 'generatedBy', 'keys', 'verifiers'],
    ),
    indexFile: closed(
      {
        $schema: { const: `${id}#/$defs/indexFile` },
        schemaVersion: { const: 1 },
        version: {
          description:
            'The version of the set of cases (semver): bumped whenever a case, key or schema is added, changed or removed.',
          type: 'string',
          pattern: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
        },
        description: nonEmpty,
        generatedBy: nonEmpty,
        keys: { const: 'keys.json' },
        files: {
          type: 'array',
          items: closed(
            {
              path: { type: 'string', pattern: '^[a-z0-9-]+(/[a-z0-9-]+)?\\.json$' },
              cases: { type: 'integer', minimum: 1 },
              valid: { type: 'integer', minimum: 0 },
              invalid: { type: 'integer', minimum: 0 },
              acceptable: { type: 'integer', minimum: 0 },
            },
            ['path', 'cases', 'valid', 'invalid', 'acceptable'],
          ),
        },
        totalCases: { type: 'integer', minimum: 1 },
        schemas: {
          description:
            'Where each JSON Schema the vectors name lies, relative to this index: schemas/ inside vectors/, so vendoring vectors/ alone keeps them ($id → path).',
          type: 'object',
          additionalProperties: {
            type: 'string',
            pattern: '^schemas/[a-z-]+(\\.strict)?\\.schema\\.json$',
          },
        },
        payloads: {
          description:
            'The payload vector files (format: `payloadVectors` in `schemas`), one per payload kind.',
          type: 'array',
          items: closed(
            {
              path: { type: 'string', pattern: '^payloads/[a-z-]+\\.json$' },
              kind: { type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' },
              schema: { type: 'string', minLength: 1 },
              strictSchema: { type: 'string', minLength: 1 },
              cases: { type: 'integer', minimum: 1 },
              valid: { type: 'integer', minimum: 0 },
              invalid: { type: 'integer', minimum: 0 },
            },
            ['path', 'kind', 'schema', 'strictSchema', 'cases', 'valid', 'invalid'],
          ),
        },
        totalPayloadCases: { type: 'integer', minimum: 1 },
        sha256: {
          description:
            'The SHA-256 (lowercase hex) of every file of the set, by path relative to this index: keys, cases, payload cases and schemas.',
          type: 'object',
          propertyNames: { pattern: '^[a-z0-9./-]+\\.json$' },
          additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        formats: closed(
          { vectors: nonEmpty, payloadVectors: nonEmpty },
          ['vectors', 'payloadVectors'],
          {
            description:
              'The $id of the schema of each file format: vector files, keys.json and this index (`vectors`), payload vector files (`payloadVectors`).',
          },
        ),
      },
      [
        '$schema',
        'schemaVersion',
        'version',
        'description',
        'generatedBy',
        'keys',
        'files',
        'totalCases',
        'schemas',
        'payloads',
        'totalPayloadCases',
        'formats',
        'sha256',
      ],
    ),
  },
} as const;

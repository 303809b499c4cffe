// The $defs of schemas/vectors.schema.json that each operation's input and expected output use (digest, signature
// base, sign, verify, webhook verify, parse key, and the RFC 9421 library cases), in the schema's order.
import {
  str,
  nonEmpty,
  base64,
  unixSeconds,
  closed,
  bodyChoice,
  bodyProps,
} from './schema-helpers.js';

/** Each operation's input and expected output, spread into `vectorsSchema.$defs` where they stand. */
export const operationDefs = {
  digestInput: {
    oneOf: [
      closed(
        { mode: { const: 'compute' }, algorithm: { enum: ['sha-512', 'sha-256'] }, ...bodyProps },
        ['mode', 'algorithm'],
        bodyChoice,
      ),
      closed(
        {
          mode: { const: 'verify' },
          contentDigest: str,
          algorithms: { type: 'array', items: nonEmpty, minItems: 1 },
          ...bodyProps,
        },
        ['mode', 'contentDigest', 'algorithms'],
        bodyChoice,
      ),
    ],
  },
  digestExpected: {
    oneOf: [
      closed({ contentDigest: nonEmpty }, ['contentDigest']),
      closed({ valid: { const: true } }, ['valid']),
      closed({ valid: { const: false }, code: nonEmpty }, ['valid', 'code']),
    ],
  },
  profileParameters: closed({ created: unixSeconds, keyid: str, nonce: str }, [
    'created',
    'keyid',
    'nonce',
  ]),
  signatureBaseInput: closed(
    { request: { $ref: '#/$defs/request' }, parameters: { $ref: '#/$defs/profileParameters' } },
    ['request', 'parameters'],
  ),
  signatureBaseExpected: {
    oneOf: [
      closed({ signatureBase: nonEmpty }, ['signatureBase']),
      closed({ error: nonEmpty }, ['error']),
    ],
  },
  signInput: closed(
    {
      request: { $ref: '#/$defs/request' },
      credentials: closed(
        {
          applicationId: str,
          applicationSecret: str,
          keyId: str,
          privateKey: { $ref: '#/$defs/keyRef' },
        },
        ['applicationId', 'applicationSecret', 'keyId', 'privateKey'],
      ),
      created: unixSeconds,
      nonce: str,
      now: unixSeconds,
      nonceState: { type: 'array', items: str, uniqueItems: true },
    },
    ['request', 'credentials', 'created', 'nonce', 'now', 'nonceState'],
  ),
  signExpected: closed({ headers: { $ref: '#/$defs/headers' }, signatureBase: nonEmpty }, [
    'headers',
    'signatureBase',
  ]),
  verifyInput: closed(
    {
      request: { $ref: '#/$defs/request' },
      now: unixSeconds,
      nonceState: { type: 'array', items: str, uniqueItems: true },
      verifier: {
        description: 'A verifier registry name in keys.json (`verifiers`).',
        ...nonEmpty,
      },
    },
    ['request', 'now', 'nonceState', 'verifier'],
  ),
  verifyExpected: {
    oneOf: [
      closed({ ok: { const: true }, signatureBase: nonEmpty }, ['ok']),
      closed(
        {
          ok: { const: false },
          code: nonEmpty,
          step: { type: 'integer', minimum: 1, maximum: 12 },
        },
        ['ok', 'code', 'step'],
      ),
    ],
  },
  webhookVerifyInput: closed(
    {
      body: { $ref: '#/$defs/body' },
      authorization: { type: ['string', 'null'] },
      publicKey: { $ref: '#/$defs/keyRef' },
    },
    ['body', 'authorization', 'publicKey'],
  ),
  webhookVerifyExpected: {
    oneOf: [
      closed({ ok: { const: true }, authorization: nonEmpty }, ['ok']),
      closed({ ok: { const: false }, code: nonEmpty }, ['ok', 'code']),
    ],
  },
  parseKeyInput: {
    oneOf: [
      closed(
        { keyType: { enum: ['ed25519-private', 'ed25519-public', 'rsa-public'] }, text: str },
        ['keyType', 'text'],
      ),
      closed(
        {
          keyType: { enum: ['ed25519-private', 'ed25519-public', 'rsa-public'] },
          bytesBase64: base64,
        },
        ['keyType', 'bytesBase64'],
      ),
    ],
  },
  parseKeyExpected: {
    oneOf: [
      closed({ ok: { const: true }, publicKey: base64 }, ['ok', 'publicKey']),
      closed({ ok: { const: false }, code: nonEmpty }, ['ok', 'code']),
    ],
  },
  rfc9421Input: closed(
    {
      request: { $ref: '#/$defs/request' },
      label: nonEmpty,
      publicKey: { $ref: '#/$defs/keyRef' },
    },
    ['request', 'label'],
  ),
  rfc9421BaseExpected: closed({ signatureBase: nonEmpty }, ['signatureBase']),
  rfc9421VerifyExpected: closed({ ok: { type: 'boolean' } }, ['ok']),
};

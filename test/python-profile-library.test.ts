// The Python profile library (vectors/adapters/python/payconform_profile.py) as an implementer lifts it: imported
// on its own, away from the harness glue, its sign_request() signs what payconform's verifier accepts and its
// verify_request() accepts what payconform's signer signs and refuses a changed body with the spec step's code.
// Python runs as a child process: the separate implementation is the point.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { applySignedHeaders } from '../src/profile/sign-request.js';
import { verifyRequest } from '../src/profile/verify-request.js';
import { REPO_ROOT } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';
import {
  nowSeconds,
  resolveTestApplication,
  signedTestRequest,
} from './fixtures/signed-test-request.js';

const LIBRARY_DIR = join(REPO_ROOT, 'vectors/adapters/python');
const keys = loadTestKeys();

/** Runs `code` with the library importable (and nothing of the harness), feeding it `input` as JSON. */
function python(code: string, input: unknown): unknown {
  const script = [
    'import base64, json, sys',
    `sys.path.insert(0, ${JSON.stringify(LIBRARY_DIR)})`,
    'from payconform_profile import sign_request, verify_request',
    'inp = json.load(sys.stdin)',
    code,
  ].join('\n');
  const r = spawnSync('python3', ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const bodyText = '{"amount":10.5}';

describe('payconform_profile.py: sign_request() and verify_request(), importable on their own', () => {
  it("sign_request() signs what payconform's verifier accepts", async () => {
    const signed = python(
      [
        'req = dict(inp["request"], body=inp["request"]["body"].encode())',
        'print(json.dumps(sign_request(req, inp["credentials"], inp["created"], "py-nonce-1")))',
      ].join('\n'),
      {
        request: {
          method: 'POST',
          url: 'https://api.example.com/api/payouts',
          headers: [['content-type', 'application/vnd.service.v1.0+json']],
          body: bodyText,
        },
        // TEST ONLY key and secret (test/fixtures/keys/README.md).
        credentials: {
          applicationId: 'app-1',
          applicationSecret: 'test-only-secret-1',
          keyId: 'key-1',
          privateKey: keys.clientEd25519.seedBase64,
        },
        created: nowSeconds(),
      },
    ) as { headers: Array<[string, string]>; signatureBase: string };
    const request: HttpRequest = applySignedHeaders(
      {
        method: 'POST',
        url: 'https://api.example.com/api/payouts',
        headers: toFieldLines({ 'Content-Type': 'application/vnd.service.v1.0+json' }),
        body: new TextEncoder().encode(bodyText),
      },
      Object.fromEntries(signed.headers),
    );
    const result = await verifyRequest(request, {
      nonceStore: new MemoryNonceStore(),
      resolveApplication: resolveTestApplication,
    });
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });

  it("verify_request() accepts payconform's signed request and refuses it with the body changed (step 8)", () => {
    const request = signedTestRequest('ts-nonce-1');
    const asInput = (body: string) => ({
      request: {
        method: request.method,
        url: request.url,
        headers: request.headers.map(([n, v]) => [n, v]),
        body,
      },
      now: nowSeconds(),
      applications: [
        {
          applicationId: 'app-1',
          applicationSecret: 'test-only-secret-1',
          keys: [{ keyId: 'key-1', publicKey: keys.clientEd25519.publicPem }],
        },
      ],
    });
    const verify = [
      'req = dict(inp["request"], body=inp["request"]["body"].encode())',
      'print(json.dumps(verify_request(req, inp["now"], inp["applications"], set())))',
    ].join('\n');
    expect(python(verify, asInput(bodyText))).toMatchObject({
      ok: true,
      applicationId: 'app-1',
      keyId: 'key-1',
      nonce: 'ts-nonce-1',
    });
    expect(python(verify, asInput('{"amount":99.5}'))).toEqual({
      ok: false,
      code: 'DIGEST_MISMATCH',
      step: 8,
    });
  });
});

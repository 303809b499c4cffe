// The public-key endpoint (spec: Endpoint 5): GET /.well-known/signature/pem returns the service's RSA public key
// in PKCS#8 (SubjectPublicKeyInfo) PEM form with the BEGIN and END lines trimmed off.
import { createPublicKey } from 'node:crypto';
import { decodeStrictBase64 } from '../../../src/keys/base64.js';
import { parseRsaPublicKey } from '../../../src/webhooks/index.js';
import type { Evidence, Finding } from '../../run/check.js';
import { pass, violation } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import { serverCheck, type ServerAuditContext } from './context.js';
import { describeOutcome, evidenceOf, exchange, publicKeyRequest } from './requests.js';

/** Findings on the form of what the endpoint served. */
function judgeForm(ctx: ServerAuditContext, ex: RecordedExchange): Finding[] {
  const evidence = evidenceOf(ctx, ex);
  if (ex.response?.status !== 200)
    return [
      violation('the public-key endpoint did not answer 200', {
        requirement: 'KEY-ENDPOINT',
        expected: '200 with the key',
        received: describeOutcome(ex),
        evidence,
      }),
    ];
  const text = ex.response.bodyText;
  if (text === undefined)
    return [
      violation('the public-key body is not text', { requirement: 'KEY-PEM-TRIMMED', evidence }),
    ];
  return [
    pass('the public-key endpoint answered 200', { requirement: 'KEY-ENDPOINT' }),
    judgeTrimmedBody(text, evidence),
  ];
}

/** The body: base64 of a DER SubjectPublicKeyInfo of an RSA key, without the PEM BEGIN/END lines. */
function judgeTrimmedBody(text: string, evidence: Evidence): Finding {
  if (/-----(BEGIN|END)[^-]*-----/.test(text))
    return violation('the key is served with its PEM BEGIN/END lines', {
      requirement: 'KEY-PEM-TRIMMED',
      expected: 'the base64 body only, BEGIN and END lines trimmed off',
      received: text.split(/\r?\n/)[0] ?? '',
      evidence,
    });
  let der: Uint8Array;
  try {
    der = decodeStrictBase64(text.trim().replace(/\r?\n/g, ''), 'public key body');
  } catch (error) {
    return violation('the key body is not base64', {
      requirement: 'KEY-PEM-TRIMMED',
      received: error instanceof Error ? error.message : String(error),
      evidence,
    });
  }
  try {
    // PKCS#8 form for a public key: a DER SubjectPublicKeyInfo (not PKCS#1 RSAPublicKey).
    createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
  } catch {
    return violation('the key body is not a DER SubjectPublicKeyInfo', {
      requirement: 'KEY-PEM-TRIMMED',
      expected: 'SPKI (BEGIN PUBLIC KEY form)',
      evidence,
    });
  }
  try {
    const key = parseRsaPublicKey(der);
    return pass(`trimmed PEM body of an RSA ${key.modulusBits}-bit SubjectPublicKeyInfo`, {
      requirement: 'KEY-PEM-TRIMMED',
    });
  } catch (error) {
    return violation('the key is not an RSA key usable for SHA256withRSA', {
      requirement: 'KEY-PEM-TRIMMED',
      received: error instanceof Error ? error.message : String(error),
      evidence,
    });
  }
}

const form = serverCheck({
  id: 'public-key-form',
  title: 'the public-key endpoint serves the RSA SPKI key as a PEM body without BEGIN/END lines',
  area: 'public-key',
  requirements: ['KEY-ENDPOINT', 'KEY-PEM-TRIMMED'],
  level: 'MUST',
  async run(ctx, env) {
    return judgeForm(ctx, await exchange(ctx, env, publicKeyRequest(ctx)));
  },
});

export const publicKeyChecks = [form] as const;

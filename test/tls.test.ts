// HTTPS where the spec demands it (spec, Authentication / Signed requests / Other rules: "HTTPS only"): the generated
// loopback certificate, the reference service over TLS under the whole server audit, `audit server --ca` and its TLS
// errors (exit 3), `audit client --tls` with a Node fetch client and a Python stdlib-ssl client, a client that also
// uses plain HTTP, and @authority without :443 on port 443.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { sendRequest } from '../conformance/http/http-client.js';
import { applySignedHeaders, parseEd25519PrivateKey, signRequest } from '../src/index.js';
import {
  generateLoopbackTls,
  startReferenceService,
  type GeneratedLoopbackTls,
} from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { withLightForgeries } from './fixtures/light-forgeries.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { runMain, startMain, type StartedMain } from './fixtures/cli.js';

const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-tls-'));
const SECRET = 'test-only-secret-tls-4b1e';
const APP_ID = '7a0c2b34-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const KEY_ID = 'test-only-tls-key-1';
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  NO_COLOR: '1',
  PAYCONFORM_APPLICATION_ID: APP_ID,
  PAYCONFORM_APPLICATION_SECRET: SECRET,
  PAYCONFORM_KEY_ID: KEY_ID,
  PAYCONFORM_PUBLIC_KEY: keys.clientEd25519.publicPem,
  PAYCONFORM_MERCHANT_ID: '11111111-2222-4333-8444-555555555555',
  PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
};

/** `payconform ...` through main() in-process to its end (given up after 90 s). */
const payconform = (args: readonly string[], extraEnv: Record<string, string> = {}) =>
  runMain(args, { ...env, ...extraEnv }, { timeoutMs: 90_000 });

/** GET over HTTPS trusting `ca` only; the status, or the TLS error code. */
function getStatus(host: string, port: number, ca: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = https.get(
      { host, port, path: '/.well-known/signature/pem', ca, agent: false, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

let tls: GeneratedLoopbackTls;
let otherCa: GeneratedLoopbackTls;
beforeAll(async () => {
  [tls, otherCa] = await Promise.all([generateLoopbackTls(), generateLoopbackTls()]);
});

describe('generated loopback certificate (a test-only CA issues it at start)', () => {
  it('is trusted for localhost, 127.0.0.1 and ::1 through its CA, and not without it', async () => {
    const service = await startReferenceService({ tls, host: '::', seedPayments: false });
    try {
      expect(service.baseUrl).toMatch(/^https:\/\//);
      for (const host of ['localhost', '127.0.0.1', '::1'])
        expect(await getStatus(host, service.port, tls.caCert)).toBe(200);
      expect(await getStatus('127.0.0.1', service.port, otherCa.caCert)).toMatch(
        /CERT|VERIFY|SIGNATURE/,
      );
      // Only the CA certificate is handed out; the CA's private key is not part of the result.
      expect(Object.keys(tls).sort()).toEqual(['caCert', 'cert', 'key']);
      expect(tls.caCert).not.toContain('PRIVATE KEY');
    } finally {
      await service.close();
    }
  });
});

describe('the reference service over HTTPS under the whole server audit', () => {
  it('passes every check with the CA trusted (no failure, no error)', async () => {
    const target = await startEmbeddedTarget({
      tls,
      webhookSigningKey: keys.webhookRsa.privatePem,
    });
    try {
      expect(target.context.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      // Every check over HTTPS, not the drawing: the forgeries send every form's edge and draw a few more.
      const summary = await auditTarget(withLightForgeries(target));
      const bad = summary.results
        .filter((c) => c.outcome === 'fail' || c.outcome === 'error')
        .map((c) => `${c.id}: ${c.outcome}`);
      expect(bad).toEqual([]);
      expect(summary.results.filter((c) => c.outcome === 'pass').length).toBeGreaterThan(20);
    } finally {
      await target.close();
    }
  }, 120_000);
});

describe('payconform serve --tls and audit server --ca (main() in-process)', () => {
  let serve: StartedMain | undefined;
  let origin = '';
  const caFile = join(dir, 'serve-ca.pem');
  const wrongCa = join(dir, 'wrong-ca.pem');

  beforeAll(async () => {
    writeFileSync(wrongCa, otherCa.caCert);
    const port = await unusedLoopbackPort();
    // In-process, as the audits below: what is tested is what serve writes and prints, not a process of its own (a
    // child through tsx cost about a second of CPU to start).
    let listening!: (url: string) => void;
    const started = new Promise<string>((resolve) => (listening = resolve));
    serve = startMain(
      ['serve', '--tls', '--tls-ca-out', caFile, '--port', String(port), '--quiet'],
      env,
      {
        timeoutMs: 600_000,
        onStdout: (text) => {
          const m = /listening on (https:\/\/\S+)/.exec(text);
          if (m) listening(m[1]!);
        },
      },
    );
    origin = await Promise.race([
      started,
      serve.done.then(({ stdout, stderr }) => {
        throw new Error(`serve ended before it listened: ${stdout}${stderr}`);
      }),
    ]);
  }, 40_000);
  afterAll(async () => {
    serve?.stop();
    await serve?.done;
  });

  it('writes the CA file it prints, and an audit that trusts it passes', async () => {
    expect(readFileSync(caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
    const r = await payconform([
      'audit',
      'server',
      '--target',
      origin,
      '--ca',
      caFile,
      '--only',
      'public-key-form,payout-signed-accepted,application-secret-wrong',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PASS/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }, 60_000);

  it('a wrong CA, or none, ends with exit 3 and the TLS reason', async () => {
    for (const args of [['--ca', wrongCa], []]) {
      const r = await payconform([
        'audit',
        'server',
        '--target',
        origin,
        ...args,
        '--only',
        'public-key-form',
      ]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/TLS_ERROR/);
      expect(r.stderr).toMatch(/certificate/i);
    }
  }, 60_000);

  it('refuses an incomplete TLS flag set (exit 2)', async () => {
    const r = await payconform(['serve', '--tls-cert', caFile]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});

// TEST ONLY clients of `audit client --tls`. Each trusts the CA the audit wrote (PAYCONFORM_CA_FILE), and each signs
// by hand as the Python one does: plain JavaScript, so Node runs it without tsx (which cost about half a second of CPU
// per run to load the library's sources).
const nodeClient = join(dir, 'client.mjs');
writeFileSync(
  nodeClient,
  `import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
const e = process.env;
// CLIENT_PLAIN=1: a faulty client that sends the signed payout to the plain-HTTP URL.
const base = new URL(e.CLIENT_PLAIN === '1' ? e.PAYCONFORM_PLAIN_HTTP_BASE_URL : e.PAYCONFORM_BASE_URL);
const body = JSON.stringify({ applicationId: e.PAYCONFORM_APPLICATION_ID, payInAccountSelector: e.PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR, amount: 3.5, reference: 'TLS-1',
  destination: { destinationType: 'toAccount', accountType: 'SCAN', holderName: 'Jane Payee', accountNumber: '12345678', sortCode: '040004', iban: null } });
const digest = 'sha-512=:' + createHash('sha512').update(body).digest('base64') + ':';
const ctype = 'application/vnd.service.v1.0+json';
const names = ['@method', '@path', '@authority', 'content-digest', 'content-type', 'content-length', 'x-application-id', 'x-application-secret'];
const values = ['POST', '/api/payouts', base.host, digest, ctype, String(Buffer.byteLength(body)), e.PAYCONFORM_APPLICATION_ID, e.PAYCONFORM_APPLICATION_SECRET];
const params = '(' + names.map((n) => '"' + n + '"').join(' ') + ');created=' + Math.floor(Date.now() / 1000) + ';keyid="' + e.PAYCONFORM_KEY_ID + '";alg="ed25519";nonce="' + randomUUID() + '"';
const signatureBase = names.map((n, i) => '"' + n + '": ' + values[i]).join('\\n') + '\\n"@signature-params": ' + params;
const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(e.PAYCONFORM_PRIVATE_KEY, 'base64')]);
const signature = sign(null, Buffer.from(signatureBase), createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
const payout = await fetch(new URL('/api/payouts', base), { method: 'POST', body, signal: AbortSignal.timeout(5000), headers: {
  'content-type': ctype, 'x-application-id': e.PAYCONFORM_APPLICATION_ID, 'x-application-secret': e.PAYCONFORM_APPLICATION_SECRET,
  'content-digest': digest, 'signature-input': 'sig1=' + params, 'signature': 'sig1=:' + signature.toString('base64') + ':' } });
console.log('payout', payout.status);
`,
);
const pythonClient = join(dir, 'client.py');
writeFileSync(
  pythonClient,
  `import base64, hashlib, http.client, json, os, ssl, time, urllib.parse, uuid
from cryptography.hazmat.primitives.asymmetric import ed25519
e = os.environ
base = urllib.parse.urlsplit(e["PAYCONFORM_BASE_URL"])
assert base.scheme == "https", "this client refuses plain HTTP"
context = ssl.create_default_context(cafile=e["PAYCONFORM_CA_FILE"])
body = json.dumps({"applicationId": e["PAYCONFORM_APPLICATION_ID"], "payInAccountSelector": e["PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR"], "amount": 4.25, "reference": "PY-TLS-1",
  "destination": {"destinationType": "toAccount", "accountType": "SCAN", "holderName": "Jane Payee", "accountNumber": "12345678", "sortCode": "040004", "iban": None}}, separators=(",", ":")).encode()
digest = "sha-512=:" + base64.b64encode(hashlib.sha512(body).digest()).decode() + ":"
ctype = "application/vnd.service.v1.0+json"
names = ["@method", "@path", "@authority", "content-digest", "content-type", "content-length", "x-application-id", "x-application-secret"]
authority = base.hostname if base.port in (None, 80, 443) else f"{base.hostname}:{base.port}"
values = ["POST", "/api/payouts", authority, digest, ctype, str(len(body)), e["PAYCONFORM_APPLICATION_ID"], e["PAYCONFORM_APPLICATION_SECRET"]]
params = "(" + " ".join(f'"{n}"' for n in names) + f');created={int(time.time())};keyid="{e["PAYCONFORM_KEY_ID"]}";alg="ed25519";nonce="{uuid.uuid4()}"'
signature_base = "\\n".join(f'"{n}": {v}' for n, v in zip(names, values)) + f'\\n"@signature-params": {params}'
seed = base64.b64decode(e["PAYCONFORM_PRIVATE_KEY"])
signature = ed25519.Ed25519PrivateKey.from_private_bytes(seed).sign(signature_base.encode())
conn = http.client.HTTPSConnection(base.hostname, base.port, context=context, timeout=5)
conn.request("POST", "/api/payouts", body=body, headers={"Content-Type": ctype, "x-application-id": e["PAYCONFORM_APPLICATION_ID"],
  "x-application-secret": e["PAYCONFORM_APPLICATION_SECRET"], "Content-Digest": digest, "Signature-Input": "sig1=" + params,
  "Signature": "sig1=:" + base64.b64encode(signature).decode() + ":"})
print("payout", conn.getresponse().status)
`,
);

function pythonStatus(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import cryptography, ssl'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.error) return `python3 not found (${r.error.message})`;
  if (r.status !== 0)
    return `python3 cannot import the cryptography package: ${r.stderr.trim().split('\n').pop() ?? ''}`;
  return undefined;
}
const pythonMissing = pythonStatus();
if (pythonMissing !== undefined) console.warn(`SKIPPED: Python TLS client: ${pythonMissing}`);

describe('payconform audit client --tls (spawned)', () => {
  const nodeCommand = `NODE_EXTRA_CA_CERTS="$PAYCONFORM_CA_FILE" ${JSON.stringify(process.execPath)} ${JSON.stringify(nodeClient)}`;

  it('a Node fetch client that trusts the written CA passes, every signed request over TLS', async () => {
    const report = join(dir, 'node-client.json');
    const r = await payconform([
      'audit',
      'client',
      '--tls',
      '--exec',
      nodeCommand,
      '--timeout',
      '60',
      '--report',
      `json:${report}`,
    ]);
    expect(r.stderr).toMatch(/client\| payout 20\d/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/verifying endpoint at https:\/\//);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{ id: string; outcome: string }>;
    };
    expect(json.results.find((c) => c.id === 'client-https-only')?.outcome).toBe('pass');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }, 90_000);

  it('a client that sends its signed request to the plain-HTTP URL fails client-https-only', async () => {
    const report = join(dir, 'plain-client.json');
    const r = await payconform(
      [
        'audit',
        'client',
        '--tls',
        '--exec',
        nodeCommand,
        '--timeout',
        '60',
        '--report',
        `json:${report}`,
      ],
      { CLIENT_PLAIN: '1' },
    );
    expect(r.code).toBe(1);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{ id: string; outcome: string }>;
    };
    expect(json.results.find((c) => c.id === 'client-https-only')?.outcome).toBe('fail');
    // Everything else about the request is right: only the transport is wrong.
    expect(json.results.find((c) => c.id === 'client-signature-verifies')?.outcome).toBe('pass');
  }, 90_000);

  it.skipIf(pythonMissing !== undefined && process.env.CI !== 'true')(
    'a Python client (http.client over ssl with the written CA) passes',
    async () => {
      expect(pythonMissing).toBeUndefined();
      const r = await payconform([
        'audit',
        'client',
        '--tls',
        '--exec',
        `python3 ${JSON.stringify(pythonClient)}`,
        '--timeout',
        '60',
      ]);
      expect(r.stderr).toMatch(/client\| payout 20\d/);
      expect(r.code).toBe(0);
    },
    90_000,
  );

  it('without --tls the transport check is not applicable', async () => {
    const report = join(dir, 'plain-audit.json');
    const r = await payconform([
      'audit',
      'client',
      '--exec',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(nodeClient)}`,
      '--timeout',
      '60',
      '--report',
      `json:${report}`,
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{ id: string; outcome: string }>;
    };
    expect(json.results.find((c) => c.id === 'client-https-only')?.outcome).toBe('n/a');
  }, 90_000);
});

// Port 443 needs root (or CAP_NET_BIND_SERVICE); tests run as root here and in CI.
const canBind443 = process.getuid?.() === 0;
if (!canBind443) console.warn('SKIPPED: @authority on port 443: binding port 443 needs root');

describe.skipIf(!canBind443)(
  '@authority on the default port (spec: "default ports 80 and 443 omitted")',
  () => {
    it('the sandbox on port 443 accepts a payout signed for "127.0.0.1" without :443', async () => {
      const service = await startReferenceService({
        tls,
        host: '127.0.0.1',
        port: 443,
        seedPayments: false,
      });
      try {
        expect(service.baseUrl).toBe('https://127.0.0.1');
        const c = service.credentials;
        const body = new TextEncoder().encode(
          JSON.stringify({
            applicationId: c.applicationId,
            payInAccountSelector: 'main',
            amount: 1.5,
            reference: 'P443',
            destination: {
              destinationType: 'toAccount',
              accountType: 'SCAN',
              holderName: 'Jane Payee',
              accountNumber: '12345678',
              sortCode: '040004',
              iban: null,
            },
          }),
        );
        const request = {
          method: 'POST',
          url: 'https://127.0.0.1/api/payouts',
          headers: [['content-type', 'application/vnd.service.v1.0+json']] as Array<
            [string, string]
          >,
          body,
        };
        const signed = signRequest(request, {
          applicationId: c.applicationId,
          applicationSecret: c.applicationSecret,
          keyId: c.keyId,
          privateKey: c.privateKey!,
        });
        expect(signed.signatureBase).toContain('"@authority": 127.0.0.1\n');
        const sent = await sendRequest(applySignedHeaders(request, signed.headers), {
          timeoutMs: 5_000,
          ca: tls.caCert,
        });
        expect(sent.error).toBeUndefined();
        expect(sent.response?.status).toBeLessThan(300);
        // Written with the port, the Host header names the same authority: still accepted.
        const withPort = {
          ...request,
          headers: [['host', '127.0.0.1:443'], ...request.headers] as Array<[string, string]>,
        };
        const signedWithPort = signRequest(withPort, {
          applicationId: c.applicationId,
          applicationSecret: c.applicationSecret,
          keyId: c.keyId,
          privateKey: c.privateKey!,
        });
        const sent2 = await sendRequest(applySignedHeaders(withPort, signedWithPort.headers), {
          timeoutMs: 5_000,
          ca: tls.caCert,
        });
        expect(sent2.response?.status).toBeLessThan(300);
      } finally {
        await service.close();
      }
    });
  },
);

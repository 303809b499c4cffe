// `--attest FILE` and `payconform attest verify`: an audit run's in-toto Test Result statement in a DSSE
// envelope signed with Ed25519. The envelope of a real run verifies with payconform and with an independent check
// (a DSSE PAE and keyid written here from the DSSE and in-toto specs, node:crypto's Ed25519); the digests match the
// report, the HAR and the carried configuration; every single-byte change to the envelope, the statement, the report
// or the HAR fails; a statement whose lists do not follow from the report fails; the key is never an argument and
// never in any output.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  verify,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTESTED_FILES,
  attestationProblems,
  testResultOf,
  verifyAuditAttestation,
} from '../conformance/report/attestation.js';
import {
  preAuthEncoding,
  serializeDsseEnvelope,
  signDsseEnvelope,
  type DsseEnvelope,
} from '../src/attest/dsse.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/attest/statement.js';
import { parseEd25519PrivateKey, parseEd25519PublicKey } from '../src/keys/index.js';
import { runMain, type CliRun } from './fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-attest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pair = generateKeyPairSync('ed25519');
const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const seed = parseEd25519PrivateKey(privatePem).seed;
const keyFile = join(dir, 'attest.key');
const publicFile = join(dir, 'attest.pub');
writeFileSync(keyFile, privatePem, { mode: 0o600 });
writeFileSync(publicFile, publicPem);
const publicKey = parseEd25519PublicKey(publicPem);

const paths = {
  report: join(dir, 'report.json'),
  har: join(dir, 'run.har'),
  envelope: join(dir, 'run.intoto.json'),
};
const env = { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' };
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** DSSE v1 PAE, written from the protocol text independently of src/attest/dsse.ts. */
function independentPae(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${t.length} `, 'ascii'),
    t,
    Buffer.from(` ${body.length} `, 'ascii'),
    body,
  ]);
}

let audit: CliRun;
beforeAll(async () => {
  audit = await runMain(
    [
      'audit',
      'server',
      '--only',
      'payout-signed-accepted,nonce-replayed',
      '--report',
      `json:${paths.report}`,
      '--report',
      `har:${paths.har}`,
      '--attest',
      paths.envelope,
    ],
    { ...env, PAYCONFORM_ATTEST_KEY_FILE: keyFile },
  );
}, 90_000);

describe('DSSE pre-authentication encoding', () => {
  it('is the protocol example: PAE("http://example.com/HelloWorld", "hello world")', () => {
    expect(
      Buffer.from(
        preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')),
      ).toString(),
    ).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
    // Lengths are bytes, not characters.
    expect(Buffer.from(preAuthEncoding('t', Buffer.from('é'))).toString()).toBe('DSSEv1 1 t 2 é');
  });
});

describe('audit server --attest FILE (main() in-process)', () => {
  it('exits 0 and writes the envelope beside the reports', () => {
    expect(audit.code, audit.stderr + audit.stdout.slice(-1500)).toBe(0);
    expect(readFileSync(paths.envelope, 'utf8')).toMatch(/^\{"payloadType":/);
  });

  it('verifies independently: PAE, keyid and Ed25519 by node:crypto, the statement and every digest', () => {
    const envelope = JSON.parse(readFileSync(paths.envelope, 'utf8')) as DsseEnvelope;
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    expect(envelope.signatures).toHaveLength(1);
    const payload = Buffer.from(envelope.payload, 'base64');
    const signature = envelope.signatures[0]!;
    expect(
      verify(
        null,
        independentPae(envelope.payloadType, payload),
        createPublicKey(publicPem),
        Buffer.from(signature.sig, 'base64'),
      ),
    ).toBe(true);
    expect(signature.keyid).toBe(
      sha256(createPublicKey(publicPem).export({ type: 'spki', format: 'der' })),
    );

    const statement = JSON.parse(payload.toString('utf8')) as {
      _type: string;
      predicateType: string;
      subject: Array<{ name: string; digest: { sha256: string } }>;
      predicate: {
        result: string;
        url?: string;
        passedTests: string[];
        warnedTests: string[];
        failedTests: string[];
        configuration: Array<{ name: string; digest: { sha256: string }; content?: string }>;
      };
    };
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.predicateType).toBe('https://in-toto.io/attestation/test-result/v0.1');
    const report = JSON.parse(readFileSync(paths.report, 'utf8')) as { target: string };
    const reportDigest = sha256(readFileSync(paths.report));
    expect(statement.subject).toEqual([{ name: report.target, digest: { sha256: reportDigest } }]);
    const p = statement.predicate;
    expect(p.result).toBe('PASSED');
    expect(p.url).toBe(report.target.split(' ')[0]);
    expect(p.passedTests.sort()).toEqual(['nonce-replayed', 'payout-signed-accepted']);
    expect(p.warnedTests).toEqual([]);
    expect(p.failedTests).toEqual([]);
    const byName = new Map(p.configuration.map((d) => [d.name, d]));
    expect(byName.get(ATTESTED_FILES.report)?.digest.sha256).toBe(reportDigest);
    expect(byName.get(ATTESTED_FILES.har)?.digest.sha256).toBe(sha256(readFileSync(paths.har)));
    const config = byName.get(ATTESTED_FILES.config)!;
    const carried = Buffer.from(config.content!, 'base64');
    expect(config.digest.sha256).toBe(sha256(carried));
    expect(JSON.parse(carried.toString('utf8'))).toMatchObject({
      command: 'payconform audit server',
      arguments: expect.arrayContaining(['--only', 'payout-signed-accepted,nonce-replayed']),
    });
  });

  it('payconform attest verify: exit 0 with the report and the HAR', async () => {
    const r = await runMain(
      [
        'attest',
        'verify',
        paths.envelope,
        '--public-key',
        publicFile,
        '--report',
        paths.report,
        '--har',
        paths.har,
      ],
      env,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^verified: signed by keyid [0-9a-f]{64}; result PASSED/);
    expect(r.stdout).toContain('digests match: report, har');
  });

  it('attest verify --public-key: a key file that is not there is said to be missing, never read as a key; a key given inline still verifies', async () => {
    for (const missing of [
      'no-such-attest.pub',
      'conformance/no-such-attest',
      'keys\\attest.pem',
    ]) {
      const r = await runMain(['attest', 'verify', paths.envelope, '--public-key', missing], env);
      expect(r.code, missing).toBe(2);
      expect(r.stderr, missing).toContain(
        `cannot read --public-key ${JSON.stringify(missing)}: ENOENT (no such file)`,
      );
      expect(r.stderr, missing).not.toContain('base64');
    }
    const bare = await runMain(['attest', 'verify', paths.envelope, '--public-key', 'attest'], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--public-key "attest": no such file, and not a key');
    const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
    for (const inline of [
      publicPem,
      spki.subarray(spki.length - 32).toString('base64'),
      spki.toString('base64'),
    ]) {
      const r = await runMain(
        ['attest', 'verify', paths.envelope, `--public-key=${inline}`, '--report', paths.report],
        env,
      );
      expect(r.code, `${inline}: ${r.stderr}`).toBe(0);
    }
  });

  it('payconform attest verify: exit 1 with the reason for another key, a changed report or envelope', async () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    writeFileSync(join(dir, 'other.pub'), other);
    const wrongKey = await runMain(
      ['attest', 'verify', paths.envelope, '--public-key', join(dir, 'other.pub')],
      env,
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toContain('KEYID_UNKNOWN');

    const report = readFileSync(paths.report, 'utf8');
    writeFileSync(join(dir, 'edited.json'), report.replace('"pass"', '"fail"'));
    const edited = await runMain(
      [
        'attest',
        'verify',
        paths.envelope,
        '--public-key',
        publicFile,
        '--report',
        join(dir, 'edited.json'),
      ],
      env,
    );
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain("the report file's SHA-256 is");

    const envelope = readFileSync(paths.envelope, 'utf8');
    writeFileSync(join(dir, 'spaced.json'), envelope.replace('{"payloadType"', '{ "payloadType"'));
    const spaced = await runMain(
      ['attest', 'verify', join(dir, 'spaced.json'), '--public-key', publicFile],
      env,
    );
    expect(spaced.code).toBe(1);
    expect(spaced.stdout).toContain('ENVELOPE_NOT_CANONICAL');
  });

  it('every single-byte change to the envelope fails verification', () => {
    const bytes = readFileSync(paths.envelope);
    const files = { report: readFileSync(paths.report), har: readFileSync(paths.har) };
    expect(verifyAuditAttestation(bytes, publicKey, files).ok).toBe(true);
    // Each change made in place and undone after its check; the positions that verified anyway are collected, so
    // that one assertion names them all.
    let checked = 0;
    const verifiedAnyway: string[] = [];
    for (let i = 0; i < bytes.length; i++)
      for (const flip of [0x01, 0x20, 0x80]) {
        bytes[i] = bytes[i]! ^ flip;
        if (verifyAuditAttestation(bytes, publicKey, files).ok)
          verifiedAnyway.push(`byte ${i} ^ ${flip}`);
        bytes[i] = bytes[i]! ^ flip;
        checked += 1;
      }
    expect(verifiedAnyway).toEqual([]);
    expect(checked).toBe(bytes.length * 3);
    expect(verifyAuditAttestation(bytes, publicKey, files).ok).toBe(true);
  });

  it('every single-byte change to the signed statement fails verification', () => {
    const envelope = JSON.parse(readFileSync(paths.envelope, 'utf8')) as DsseEnvelope;
    const statement = Buffer.from(envelope.payload, 'base64');
    const verifiedAnyway: number[] = [];
    for (let i = 0; i < statement.length; i++) {
      statement[i] = statement[i]! ^ 0x01;
      const text = serializeDsseEnvelope({ ...envelope, payload: statement.toString('base64') });
      statement[i] = statement[i]! ^ 0x01;
      if (verifyAuditAttestation(text, publicKey).ok) verifiedAnyway.push(i);
    }
    expect(verifiedAnyway, 'statement bytes').toEqual([]);
  });

  it('every single-byte change to the report or the HAR fails verification', () => {
    const envelope = readFileSync(paths.envelope);
    const verified = verifyAuditAttestation(envelope, publicKey);
    if (!verified.ok) throw new Error(verified.reasons.join('; '));
    for (const file of ['report', 'har'] as const) {
      const bytes = readFileSync(paths[file]);
      // Whole verifications for a sample of positions; every position through the files' part of the same check
      // (the envelope does not change, so its signature need not be checked again for each).
      for (const i of [0, 1, bytes.length >> 1, bytes.length - 1]) {
        const changed = Buffer.from(bytes);
        changed[i] = changed[i]! ^ 0x01;
        expect(verifyAuditAttestation(envelope, publicKey, { [file]: changed }).ok).toBe(false);
      }
      // Each change made in place and undone after its check; one assertion names every position that passed.
      const unnoticed: number[] = [];
      const changed = { [file]: bytes };
      for (let i = 0; i < bytes.length; i++) {
        bytes[i] = bytes[i]! ^ 0x01;
        if (attestationProblems(verified.statement, changed).length === 0) unnoticed.push(i);
        bytes[i] = bytes[i]! ^ 0x01;
      }
      expect(unnoticed, `${file} bytes`).toEqual([]);
      expect(attestationProblems(verified.statement, changed)).toEqual([]);
    }
  }, 120_000);

  it('a correctly signed statement whose lists do not follow from the report fails', () => {
    const envelope = JSON.parse(readFileSync(paths.envelope, 'utf8')) as DsseEnvelope;
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as {
      predicate: { passedTests: string[]; failedTests: string[] };
    };
    const moved = statement.predicate.passedTests.pop()!;
    statement.predicate.failedTests.push(moved);
    const resigned = serializeDsseEnvelope(
      signDsseEnvelope(
        IN_TOTO_PAYLOAD_TYPE,
        Buffer.from(JSON.stringify(statement)),
        parseEd25519PrivateKey(privatePem),
      ),
    );
    expect(verifyAuditAttestation(resigned, publicKey).ok).toBe(true);
    const v = verifyAuditAttestation(resigned, publicKey, { report: readFileSync(paths.report) });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reasons.join('\n')).toContain("does not follow from the report's outcomes");
  });

  it('the signing key is in no output: not in the envelope, the reports or what the command printed', () => {
    const seedBase64 = Buffer.from(seed).toString('base64');
    const privateDer = createPrivateKey(privatePem)
      .export({ type: 'pkcs8', format: 'der' })
      .toString('base64');
    for (const text of [
      audit.stdout,
      audit.stderr,
      readFileSync(paths.envelope, 'utf8'),
      readFileSync(paths.report, 'utf8'),
      readFileSync(paths.har, 'utf8'),
    ]) {
      expect(text).not.toContain(seedBase64);
      expect(text).not.toContain(privateDer.slice(20, 60));
    }
  });
});

describe('--attest usage (exit 2, nothing run)', () => {
  it('without a signing key in the environment: says where the key goes', async () => {
    const r = await runMain(
      [
        'audit',
        'server',
        '--report',
        `json:${join(dir, 'nokey.json')}`,
        '--attest',
        join(dir, 'a.json'),
      ],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PAYCONFORM_ATTEST_KEY');
  });

  it('without a JSON report file to digest', async () => {
    const r = await runMain(['audit', 'webhooks', '--attest', join(dir, 'b.json')], {
      ...env,
      PAYCONFORM_ATTEST_KEY_FILE: keyFile,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--attest needs --report json:FILE');
  });

  it('a key that is not an Ed25519 key is a usage error that does not echo it', async () => {
    const r = await runMain(
      [
        'audit',
        'server',
        '--report',
        `json:${join(dir, 'badkey.json')}`,
        '--attest',
        join(dir, 'c.json'),
      ],
      { ...env, PAYCONFORM_ATTEST_KEY: 'bm90LWEta2V5LWF0LWFsbA==' },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PAYCONFORM_ATTEST_KEY');
    expect(r.stderr).not.toContain('bm90LWEta2V5LWF0LWFsbA==');
  });

  it('attest verify: a missing file or key is exit 2', async () => {
    expect((await runMain(['attest', 'verify', '--public-key', publicFile], env)).code).toBe(2);
    expect((await runMain(['attest', 'verify', paths.envelope], env)).code).toBe(2);
    expect(
      (
        await runMain(
          ['attest', 'verify', join(dir, 'missing.json'), '--public-key', publicFile],
          env,
        )
      ).code,
    ).toBe(2);
  });
});

describe('the Test Result predicate follows from the outcomes', () => {
  const results = [
    { id: 'a', outcome: 'pass' },
    { id: 'b', outcome: 'warn' },
    { id: 'c', outcome: 'fail' },
    { id: 'd', outcome: 'error' },
    { id: 'e', outcome: 'skip' },
    { id: 'f', outcome: 'n/a' },
  ] as const;
  it('FAILED for a failing verdict, WARNED for an incomplete run or a pass with warnings, PASSED otherwise', () => {
    expect(testResultOf({ verdict: 'fail', results })).toEqual({
      result: 'FAILED',
      passedTests: ['a'],
      warnedTests: ['b'],
      failedTests: ['c', 'd'],
    });
    expect(testResultOf({ verdict: 'incomplete', results: [results[0]] }).result).toBe('WARNED');
    expect(testResultOf({ verdict: 'pass', results: [results[0], results[1]] }).result).toBe(
      'WARNED',
    );
    expect(testResultOf({ verdict: 'pass', results: [results[0]] }).result).toBe('PASSED');
    expect(testResultOf({ verdict: 'error', results: [] }).result).toBe('FAILED');
  });
});

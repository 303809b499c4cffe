// docs/ci.md's recipes run as CI would, with no node on PATH, against a locally built executable: the GitHub Action
// (action.yml's steps run as the runner does: test/fixtures/action-runner.ts) and the plain shell script, with the
// releases served from loopback. The Action passes on the embedded service and writes its verdict to the step
// summary; it names the failing finding of a faulty service; it fails when no check ran; hostile inputs create nothing
// and fail as a usage error; a pinned version downloads that version, checked against the checksum input (the Action's
// pinned checksums and its mirrors: test/action-install.test.ts). Budget: one build
// (about 10 s here), audits with the explorer off or at 1 s (they prove the wiring, not what the explorer finds).
import { generateKeyPairSync } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { BinaryOutput } from '../scripts/build-binary.js';
import { readAction, runAction, type ActionRun } from './fixtures/action-runner.js';
import { signingEnv } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';
import { startWebhookReceiver } from './fixtures/webhook-receiver.js';
import {
  buildExecutable,
  pathWithout,
  readCredentials,
  runProcess,
  startServe,
} from './fixtures/executable.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
/** What the action's scripts and the shell recipe call; no node. */
const TOOLS = [
  'bash',
  'sh',
  'sed',
  'head',
  'uname',
  'curl',
  'sha256sum',
  'chmod',
  'mkdir',
  'mktemp',
  'tr',
  'rm',
];
const toolsPath = pathWithout([...TOOLS, 'cat', 'cp', 'test']);
let built: BinaryOutput;
let releases: { url: string; requested: string[]; server: Server; dir: string };

/** Serves DIR's files at /v<version>/NAME on loopback, recording each path asked for. */
function serveReleases(dir: string): Promise<typeof releases> {
  const requested: string[] = [];
  const server = createServer((req, res) => {
    requested.push(req.url ?? '');
    const m = /^\/v([^/]+)\/([^/]+)$/.exec(req.url ?? '');
    const file = m === null ? undefined : join(dir, m[1]!, m[2]!);
    if (file === undefined || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200).end(readFileSync(file));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requested,
        server,
        dir,
      }),
    ),
  );
}

/** Everything this file writes (the 100 MB executable and its served copy), removed after it. */
const work = mkdtempSync(join(tmpdir(), 'payconform-ci-recipes-test-'));

beforeAll(async () => {
  built = await buildExecutable(work);
  const dir = mkdtempSync(join(work, 'releases-'));
  mkdirSync(join(dir, version));
  copyFileSync(built.executable, join(dir, version, basename(built.executable)));
  copyFileSync(
    `${built.executable}.sha256`,
    join(dir, version, `${basename(built.executable)}.sha256`),
  );
  releases = await serveReleases(dir);
}, 180_000);

afterAll(() => {
  releases?.server.close();
  rmSync(work, { recursive: true, force: true });
});

const serveHere = (cwd: string, extra: readonly string[]) =>
  startServe(built.executable, cwd, extra, { PATH: toolsPath, HOME: cwd });
const emptyFolder = (): string => mkdtempSync(join(work, 'ci-'));
const action = (inputs: Record<string, string>, cwd = emptyFolder(), env: NodeJS.ProcessEnv = {}) =>
  runAction(root, inputs, cwd, { PATH: toolsPath, HOME: cwd, ...env });
const local = (inputs: Record<string, string>, cwd?: string, env?: NodeJS.ProcessEnv) =>
  action({ executable: built.executable, ...inputs }, cwd, env);

describe('action.yml', () => {
  const file = readAction(root);
  it('is a composite action whose run: scripts paste no expression, and whose env: holds only inputs and outputs', () => {
    expect(file.runs.using).toBe('composite');
    const mapped = new Set<string>();
    for (const step of file.runs.steps) {
      expect(step.shell).toBe('bash');
      expect(step.run, step.id).not.toContain('${{');
      for (const value of Object.values(step.env ?? {})) {
        expect(value).toMatch(/^\$\{\{ (inputs\.[a-z-]+|steps\.[a-z]+\.outputs\.[a-z-]+) \}\}$/);
        mapped.add(value);
      }
    }
    for (const name of [
      'mode',
      'target',
      'config',
      'baseline',
      'explore-seconds',
      'reports',
      'version',
      'args',
    ])
      expect([...mapped], name).toContain(`\${{ inputs.${name} }}`);
    for (const name of Object.keys(file.inputs))
      expect([...mapped]).toContain(`\${{ inputs.${name} }}`);
  });
});

describe('the Action, run as the runner runs it, with no node on PATH', () => {
  it('audits the embedded service: step passes, outputs and the step summary say PASS', async () => {
    const cwd = emptyFolder();
    const run = await local({ 'explore-seconds': '1', reports: 'json:mine/report.json' }, cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs['audit']).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    expect(run.summary).toMatch(/^### payconform audit server: PASS \(exit 0\)/m);
    expect(run.summary).toMatch(/\*\*0\*\* fail/);
    expect(existsSync(join(cwd, 'mine/report.json'))).toBe(true);
  }, 120_000);

  it('fails on a faulty service, naming the failing check and requirement in the summary (secrets from env)', async () => {
    const cwd = emptyFolder();
    const serve = await serveHere(cwd, ['--fault', 'no-digest-check']);
    try {
      const creds = readCredentials(join(cwd, 'creds.env'));
      const run = await local(
        { config: 'a.json', 'explore-seconds': '0', args: '--only\ncontent-digest-mismatch' },
        cwd,
        creds,
      );
      expect(run.code).toBe(1);
      expect(run.outputs['audit']).toMatchObject({ verdict: 'fail', 'exit-code': '1' });
      expect(run.summary).toMatch(/FAIL/);
      expect(run.summary).toContain('content-digest-mismatch');
      expect(run.summary).toMatch(/`[A-Z][A-Z0-9]*(-[A-Z0-9]+)+`/);
      for (const secret of Object.values(creds))
        expect(run.summary + run.stderr).not.toContain(secret);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 120_000);

  it('fails when no check ran, even when the executable says 0 (a report with no counts, or none)', async () => {
    const cwd = emptyFolder();
    const fake = join(cwd, 'fake-payconform');
    const empty = { reportVersion: '1', tool: { name: 'payconform', version }, verdict: 'pass' };
    const counts = { pass: 0, fail: 0, warn: 0, skip: 3, 'n/a': 0, error: 0 };
    writeFileSync(join(cwd, 'nothing.json'), JSON.stringify({ ...empty, counts }, null, 2));
    // Writes the prepared report to the path of --report json:PATH, then exits 0, as a runner of nothing would.
    writeFileSync(
      fake,
      '#!/bin/bash\nfor a in "$@"; do case "$a" in json:*) [ -f nothing.json ] && cp nothing.json "${a#json:}";; esac; done\nexit 0\n',
    );
    chmodSync(fake, 0o755);
    const run = await action({ executable: fake }, cwd);
    expect(run.code).toBe(1);
    expect(run.summary).toContain('no check ran');
    rmSync(join(cwd, 'nothing.json'));
    const none = await action({ executable: fake }, cwd);
    expect(none.code).toBe(1);
    expect(none.summary).toContain('no report was written');
  }, 60_000);

  it('mode webhooks: a verifying receiver passes; one that accepts anything fails with --fail-on warn, named in the summary', async () => {
    const cwd = emptyFolder();
    const keyFile = join(cwd, 'service.pem');
    // Receivers served by this test process (the Action's steps reach them over loopback): one verifies every
    // webhook with the key --public-key-out wrote, one answers 200 to anything.
    const [good, lax] = await Promise.all([
      startWebhookReceiver(async () =>
        existsSync(keyFile) ? readFileSync(keyFile, 'utf8') : undefined,
      ),
      startWebhookReceiver('accepts-anything'),
    ]);
    try {
      const pass = await local(
        { mode: 'webhooks', target: good.url, args: `--public-key-out\n${keyFile}` },
        cwd,
      );
      expect(pass.code, pass.stderr + pass.summary).toBe(0);
      expect(pass.outputs['audit']).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
      expect(pass.summary).toMatch(/^### payconform audit receiver: PASS \(exit 0\)/m);
      const fail = await local(
        {
          mode: 'webhooks',
          target: lax.url,
          args: `--public-key-out\n${keyFile}\n--fail-on\nwarn`,
        },
        cwd,
      );
      expect(fail.code, fail.stderr + fail.summary).toBe(1);
      expect(fail.outputs['audit']).toMatchObject({ verdict: 'fail', 'exit-code': '1' });
      expect(fail.summary).toMatch(/webhook-[a-z-]+/);
    } finally {
      await Promise.all([good.close(), lax.close()]);
    }
  }, 120_000);

  it('mode client: a client written in shell (payconform sign, then curl) passes; one that changes the body after signing fails', async () => {
    const cwd = emptyFolder();
    const client = join(cwd, 'client.sh');
    // A TEST ONLY client with no node: the request JSON built by sed, signed by the executable, sent by curl; then a
    // refund (not signed in the spec's v0.7 refund API). CLIENT_FAULT=body sends other bytes than those signed.
    writeFileSync(
      client,
      [
        '#!/bin/sh',
        'set -eu',
        `body='{"applicationId":"'"$PAYCONFORM_APPLICATION_ID"'","payInAccountSelector":"'"$PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR"'","amount":12.5,"reference":"ACTION-1","destination":{"destinationType":"toAccount","accountType":"SCAN","holderName":"Jane Payee","accountNumber":"12345678","sortCode":"040004","iban":null}}'`,
        `escaped=$(printf '%s' "$body" | sed 's/"/\\\\"/g')`,
        `printf '{"method":"POST","url":"%s/api/payouts","headers":{"content-type":"application/vnd.service.v1.0+json"},"body":"%s"}' "$PAYCONFORM_BASE_URL" "$escaped" > request.json`,
        `"$PAYCONFORM_EXE" sign --request request.json --output curl > send.sh`,
        `if [ "\${CLIENT_FAULT:-}" = body ]; then sed -i 's/"amount":12.5/"amount":13.5/' send.sh; fi`,
        'sh send.sh',
        `curl -sS -X POST -H 'content-type: application/vnd.service.v0.7+json' -H 'accept: application/vnd.service.v0.7+json' -H "x-application-id: $PAYCONFORM_APPLICATION_ID" -H "x-application-secret: $PAYCONFORM_APPLICATION_SECRET" --data-binary '{"paymentId":"'"$PAYCONFORM_SETTLED_PAYMENT_ID"'","amount":"1.00"}' "$PAYCONFORM_BASE_URL/api/merchants/any-merchant/applications/$PAYCONFORM_APPLICATION_ID/refunds"`,
        '',
      ].join('\n'),
    );
    const keys = loadTestKeys();
    const env: Record<string, string> = {
      ...signingEnv('test-only-action-client-secret', keys.clientEd25519),
      PAYCONFORM_APPLICATION_ID: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      PAYCONFORM_EXE: built.executable,
    };
    const pass = await local({ mode: 'client', target: `sh ${client}` }, cwd, env);
    expect(pass.code, pass.stderr + pass.summary).toBe(0);
    expect(pass.outputs['audit']).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    expect(pass.summary).toMatch(/^### payconform audit client: PASS \(exit 0\)/m);
    const fail = await local({ mode: 'client', target: `sh ${client}` }, cwd, {
      ...env,
      CLIENT_FAULT: 'body',
    });
    expect(fail.code, fail.stderr + fail.summary).toBe(1);
    expect(fail.outputs['audit']).toMatchObject({ verdict: 'fail', 'exit-code': '1' });
    expect(fail.summary).toMatch(/DIGEST-[A-Z-]+/);
    for (const secret of [env['PAYCONFORM_APPLICATION_SECRET']!, env['PAYCONFORM_PRIVATE_KEY']!])
      expect(pass.summary + pass.stderr + fail.summary + fail.stderr).not.toContain(secret);
  }, 120_000);

  const hostile = [
    'x; touch pwned',
    'x\ntouch pwned',
    '$(touch pwned)',
    '`touch pwned`',
    "x' && touch pwned '",
  ];
  it.each([
    'target',
    'config',
    'baseline',
    'reports',
    'args',
    'mode',
    'explore-seconds',
    'version',
    'release-url',
    'executable',
  ])(
    'hostile %s values create nothing and fail as a usage error (exit 2)',
    async (input) => {
      for (const value of hostile) {
        const cwd = emptyFolder();
        // version, release-url and executable are read by the install step; the others by the audit step.
        const inputs: Record<string, string> = ['version', 'release-url', 'executable'].includes(
          input,
        )
          ? { 'release-url': releases.url, [input]: value }
          : { executable: built.executable, 'explore-seconds': '0', [input]: value };
        const run = await action(inputs, cwd);
        expect(run.code, `${input}=${JSON.stringify(value)}: ${run.stderr}`).toBe(2);
        expect(readdirSync(cwd), `${input}=${JSON.stringify(value)}`).not.toContain('pwned');
        expect(existsSync(join(root, 'pwned'))).toBe(false);
      }
    },
    120_000,
  );
});

describe('the Action downloads the version asked for and checks it', () => {
  // The releases are served over plain HTTP on loopback, which the install step takes only under its test-only
  // variable; the local build is no release, so its digest is given as the checksum input.
  const download = (inputs: Record<string, string>) =>
    action(inputs, undefined, { PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK: '1' });

  it("no version: the action's own package.json version, checked against the checksum input", async () => {
    releases.requested.length = 0;
    const run = await download({
      'release-url': releases.url,
      checksum: built.sha256,
      'explore-seconds': '0',
      args: '--only\npayout-signed-accepted', // one check: what is tested here is the download
    });
    expect(run.code, run.stderr).toBe(0);
    expect(releases.requested).toEqual([`/v${version}/${basename(built.executable)}`]);
  }, 120_000);

  it('a pinned version that is not released fails before anything runs', async () => {
    releases.requested.length = 0;
    const run: ActionRun = await download({
      'release-url': releases.url,
      version: '9.9.9',
      checksum: built.sha256,
    });
    expect(run.code).not.toBe(0);
    expect(run.ran).toEqual(['install']);
    expect(releases.requested[0]).toMatch(/^\/v9\.9\.9\/payconform-9\.9\.9-/);
  });

  it('an executable that does not match the expected SHA-256 is not run', async () => {
    const run = await download({ 'release-url': releases.url, checksum: '0'.repeat(64) });
    expect(run.code).toBe(2);
    expect(run.ran).toEqual(['install']);
    expect(run.stderr).toContain(`not the expected ${'0'.repeat(64)}: not running it`);
  }, 60_000);
});

describe('docs/ci.md: the workflows', () => {
  const text = readFileSync(join(root, 'docs/ci.md'), 'utf8');
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as unknown);
  it('the GitHub workflow gives the Action only its inputs, and its run: steps paste no expression', () => {
    const job = (blocks[0] as { jobs: Record<string, { steps: Record<string, unknown>[] }> }).jobs;
    const steps = Object.values(job)[0]!.steps;
    const audit = steps.find((st) => String(st['uses']).startsWith('payconform/payconform@'))!;
    expect(String(audit['uses'])).toMatch(/@v\d+\.\d+\.\d+$/);
    const inputs = Object.keys(readAction(root).inputs);
    for (const name of Object.keys(audit['with'] as object)) expect(inputs).toContain(name);
    for (const st of steps)
      if (typeof st['run'] === 'string') expect(st['run']).not.toContain('${{');
  });

  it('the GitLab job is YAML that runs the shell recipe', () => {
    const job = (blocks[1] as { conformance: { script: string[] } }).conformance;
    expect(job.script).toContain('sh ci/payconform.sh');
  });
});

describe('docs/ci.md: the shell recipe, as written', () => {
  it('downloads, checks, audits with a baseline, diffs with the last run and verifies the attestation', async () => {
    const text = readFileSync(join(root, 'docs/ci.md'), 'utf8');
    const recipe = /<!-- recipe: shell[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(text)?.[1];
    expect(recipe).toBeDefined();
    const cwd = emptyFolder();
    const serve = await serveHere(cwd, []);
    try {
      const pair = generateKeyPairSync('ed25519');
      writeFileSync(
        join(cwd, 'attest.pub'),
        pair.publicKey.export({ type: 'spki', format: 'pem' }),
      );
      writeFileSync(join(cwd, 'conformance.json'), readFileSync(join(cwd, 'a.json')));
      writeFileSync(
        join(cwd, 'baseline.json'),
        JSON.stringify({ baselineVersion: '1', entries: [] }),
      );
      writeFileSync(join(cwd, 'recipe.sh'), recipe!);
      const env = {
        PATH: toolsPath,
        HOME: cwd,
        PAYCONFORM_VERSION: version,
        PAYCONFORM_RELEASES: releases.url,
        PAYCONFORM_EXPLORE_SECONDS: '1', // the explorer runs; what it finds is not this test's point
        PAYCONFORM_ATTEST_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        ...readCredentials(join(cwd, 'creds.env')),
      };
      const args = ['recipe.sh'];
      const first = await runProcess('sh', args, { cwd, env, timeoutMs: 180_000 });
      expect(first.stdout + first.stderr).toMatch(/verified: signed by keyid/);
      expect(first.stdout + first.stderr).not.toContain('regressed');
      expect(existsSync(join(cwd, 'previous/payconform.json'))).toBe(true);
      const second = await runProcess('sh', args, { cwd, env, timeoutMs: 180_000 });
      expect(second.stdout + second.stderr).toMatch(/verified: signed by keyid/);
      expect(second.stdout).toMatch(/regress|fixed|changed|no change/i);
      // The audit against serve has skips (webhooks need a listener): the recipe's status is the audit's, not 0.
      expect(first.code).toBe(second.code);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 240_000);
});

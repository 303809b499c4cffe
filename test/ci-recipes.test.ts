// docs/ci.md's recipes run as CI would, with no node on PATH, against a locally built executable: the GitHub Action
// (action.yml's steps run as the runner does: test/fixtures/action-runner.ts), the commands that make the
// attestation key and the first baseline, and the plain shell script, with the releases served from loopback. The
// Action's outputs are the JSON report's fields (read by `payconform report fields`, whatever the order of the
// members) and agree with the step's exit code, the verdict being that code's in payconform's exit code table: on a
// pass, a fail, a run in which nothing ran (4) and an unreachable target (3); a step whose payconform says 0 when no
// check ran, or with no report, is INCOMPLETE (4), and one whose report contradicts payconform's code is 70. Each
// mode takes only the inputs action.yml gives it (as options of that audit); any other, and hostile values, fail as a
// usage error that creates nothing; a password in the target URL, in any form the URL parser reads, is in no output.
// A pinned version downloads that version, checked against the checksum input (the Action's pinned checksums and its
// mirrors: test/action-install.test.ts). Budget: one build (about 10 s here, or none: test/fixtures/executable.ts
// caches it for the sources it was built from), audits with the explorer off or at 1 s at most (they prove the wiring,
// not what the explorer finds), and one audit's report shared by the tests that only read one.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { commandSpec } from '../cli/command-table.js';
import { EXIT_CODES } from '../conformance/exit-code-table.js';
import type { BinaryOutput } from '../scripts/build-binary.js';
import { actionVerdicts } from '../scripts/cli-docs.js';
import { readAction, runAction, type ActionRun } from './fixtures/action-runner.js';
import { runMain, signingEnv } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
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
/** The recipes' first-run commands make the attestation key with openssl, and run payconform from PATH. */
const toolsPath = pathWithout([...TOOLS, 'cat', 'cp', 'test', 'openssl']);
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

interface ReportFields {
  readonly verdict: string;
  readonly exitCode: number;
}
const readReport = (path: string): ReportFields =>
  JSON.parse(readFileSync(path, 'utf8')) as ReportFields;

/**
 * A real JSON report and Markdown summary of a pass (one check, the embedded service, no explorer), made once by the
 * executable for the tests that read one (`report fields`, and the stand-in that hands one over): they only read it.
 */
let passMade: Promise<{ json: string; markdown: string }> | undefined;
function passReport(): Promise<{ json: string; markdown: string }> {
  passMade ??= (async () => {
    const dir = mkdtempSync(join(work, 'pass-'));
    const json = join(dir, 'pass.json');
    const markdown = join(dir, 'pass.md');
    const run = await runProcess(
      built.executable,
      [
        'audit',
        'server',
        '--no-explore',
        '--only',
        'payout-signed-accepted',
        '--report',
        `json:${json}`,
        '--report',
        `markdown:${markdown}`,
      ],
      { cwd: dir, env: { PATH: toolsPath, HOME: dir }, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    return { json, markdown };
  })();
  return passMade;
}

/** The step's code, its outputs and its summary's heading are the report's verdict and exit code. */
function expectOutputsOf(run: ActionRun, report: ReportFields): void {
  const said = `${run.stderr}\n${run.summary}`;
  expect(run.code, said).toBe(report.exitCode);
  expect(run.outputs['audit'], said).toMatchObject({
    verdict: report.verdict,
    'exit-code': String(report.exitCode),
  });
  expect(run.summary).toMatch(
    new RegExp(
      `^### payconform audit \\w+: ${report.verdict.toUpperCase()} \\(exit ${report.exitCode}\\)$`,
      'm',
    ),
  );
}

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

  it("its verdicts are payconform's exit code table's: action/audit.sh's block is generated from it, the verdict output names each with its codes", () => {
    expect(readFileSync(join(root, 'action/audit.sh'), 'utf8')).toContain(actionVerdicts());
    const described = file.outputs['verdict'] as { description?: string };
    const named = [...(described.description ?? '').matchAll(/(\w+) \(exit ([\d, ]+)/g)];
    const table = new Map<string, number[]>();
    for (const { code, verdict } of Object.values(EXIT_CODES))
      table.set(verdict, [...(table.get(verdict) ?? []), code]);
    expect(new Map(named.map((m) => [m[1]!, m[2]!.replace(/,? $/, '')]))).toEqual(
      new Map([...table].map(([verdict, codes]) => [verdict, codes.join(', ')])),
    );
  });

  it('each mode takes the inputs action.yml gives it, as options of that audit (the command table); any other is refused before anything runs', async () => {
    // A TEST ONLY stand-in that records the arguments it was run with, so no audit runs here.
    const recorder = join(work, 'recorder');
    writeFileSync(recorder, '#!/bin/bash\nprintf \'%s\\n\' "$@" >>"$RECORD"\nexit 2\n');
    chmodSync(recorder, 0o755);
    const values = {
      target: 'http://127.0.0.1:9',
      config: 'c.json',
      baseline: 'b.json',
      'explore-seconds': '5',
    };
    const refused: string[] = [];
    for (const mode of ['server', 'client', 'webhooks'])
      for (const [input, value] of Object.entries(values)) {
        const cwd = emptyFolder();
        const record = join(work, `record-${mode}-${input}`);
        const run = await action(
          { executable: recorder, mode, [input]: value, reports: 'json:made/r.json' },
          cwd,
          { RECORD: record },
        );
        const description = (file.inputs[input] as { description?: string }).description ?? '';
        expect(run.code).toBe(2);
        if (
          run.stderr.includes(`input ${input} does not apply to mode`) ||
          run.stderr.includes(`input ${input} applies to mode`)
        ) {
          refused.push(`${mode} ${input}`);
          expect(existsSync(record), 'nothing ran').toBe(false);
          expect(readdirSync(cwd), 'nothing was created').toEqual([]);
          expect(description).toMatch(/refused/);
          continue;
        }
        const args = readFileSync(record, 'utf8').split('\n');
        expect(args.slice(0, 2)).toEqual(['audit', mode]);
        const given = args.find(
          (a, i) => a.startsWith('--') && a !== '--report' && args[i - 1] !== '--report',
        );
        expect(
          commandSpec(`audit ${mode}`).options.map((o) => `--${o.name}`),
          `${mode} ${input}`,
        ).toContain(given);
        expect(description, `${mode} ${input}`).toMatch(new RegExp(`${mode}|every mode`));
      }
    expect(refused).toEqual([
      'client explore-seconds',
      'webhooks config',
      'webhooks explore-seconds',
    ]);
    // Client mode's target is a command line, run through the shell: action.yml says so, and warns.
    expect((file.inputs['target'] as { description?: string }).description).toMatch(
      /client: NOT a URL but a command line .* through the shell .*never build it from text others control/,
    );
  }, 60_000);
});

describe('payconform report fields: what the Action reads a report with', () => {
  const dir = mkdtempSync(join(work, 'fields-'));
  it("a report's verdict, exit code and checks that ran, whatever the order of its members; anything else is exit 2", async () => {
    const { json: path } = await passReport();
    const fields = await runMain(['report', 'fields', path], {});
    expect(fields).toMatchObject({ code: 0, stdout: 'verdict=pass\nexit-code=0\nchecks-ran=1\n' });
    // The same report with every object's members in the reverse order, and a count of known findings.
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const report = JSON.parse(readFileSync(path, 'utf8')) as { counts: Record<string, number> };
    report.counts = { ...report.counts, pass: 0, known: 1 };
    writeFileSync(join(dir, 'reversed.json'), JSON.stringify(reversed(report), null, 1));
    expect((await runMain(['report', 'fields', join(dir, 'reversed.json')], {})).stdout).toBe(
      'verdict=pass\nexit-code=0\nchecks-ran=1\n',
    );
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ verdict: 'pass', exitCode: 0 }));
    writeFileSync(join(dir, 'deep.json'), `${'['.repeat(1000)}${']'.repeat(1000)}`);
    for (const [name, said] of [
      ['other.json', 'not a payconform JSON report'],
      ['deep.json', 'nested deeper'],
      ['missing.json', 'ENOENT'],
    ] as const) {
      const r = await runMain(['report', 'fields', join(dir, name)], {});
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(said);
      expect(r.stdout, name).toBe('');
    }
  }, 60_000);
});

describe('the Action, run as the runner runs it, with no node on PATH', () => {
  it('audits the embedded service: step passes, outputs and the step summary say PASS', async () => {
    const cwd = emptyFolder();
    // The explorer runs (explore-seconds reaches the audit), bounded by a count of sequences as well as the second (on
    // a quiet machine it stops at the count instead of burning the whole second), and the drawn forgeries draw for 1 s,
    // not their default 3: what either finds is not this test's point, the step's verdict is.
    const run = await local(
      {
        'explore-seconds': '1',
        args: '--explore-runs\n5\n--forge-seconds\n1',
        reports: 'json:mine/report.json',
      },
      cwd,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs['audit']).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    expect(run.summary).toMatch(/^### payconform audit server: PASS \(exit 0\)/m);
    expect(run.summary).toMatch(/\*\*0\*\* fail/);
    expectOutputsOf(run, readReport(join(cwd, 'mine/report.json')));
    expect(run.outputs['audit']?.['report']).toMatch(/payconform-report-\d+\.json$/);
  }, 120_000);

  it('fails on a faulty service, naming the failing check and requirement in the summary (secrets from env); a run in which nothing ran is INCOMPLETE (4); outputs are the report', async () => {
    const cwd = emptyFolder();
    const serve = await serveHere(cwd, ['--fault', 'no-digest-check']);
    try {
      const creds = readCredentials(join(cwd, 'creds.env'));
      const run = await local(
        {
          config: 'a.json',
          'explore-seconds': '0',
          args: '--only\ncontent-digest-mismatch',
          reports: 'json:fail.json',
        },
        cwd,
        creds,
      );
      expect(run.code).toBe(1);
      expect(run.outputs['audit']).toMatchObject({ verdict: 'fail', 'exit-code': '1' });
      expectOutputsOf(run, readReport(join(cwd, 'fail.json')));
      expect(run.summary).toContain('content-digest-mismatch');
      expect(run.summary).toMatch(/`[A-Z][A-Z0-9]*(-[A-Z0-9]+)+`/);
      // serve was started without --webhook-url, so its config has no listener: this check is skipped.
      const none = await local(
        {
          config: 'a.json',
          'explore-seconds': '0',
          args: '--only\nwebhook-payout-status-changes',
          reports: 'json:none.json',
        },
        cwd,
        creds,
      );
      expect(none.outputs['audit']).toMatchObject({ verdict: 'incomplete', 'exit-code': '4' });
      expectOutputsOf(none, readReport(join(cwd, 'none.json')));
      for (const secret of Object.values(creds))
        expect(run.summary + run.stderr + none.summary + none.stderr).not.toContain(secret);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 120_000);

  it('an unreachable target: exit 3, verdict error, as the report says', async () => {
    const cwd = emptyFolder();
    const target = `http://127.0.0.1:${await unusedLoopbackPort()}`;
    const run = await local({ target, 'explore-seconds': '0', reports: 'json:r.json' }, cwd);
    expect(run.outputs['audit']).toMatchObject({ verdict: 'error', 'exit-code': '3' });
    expectOutputsOf(run, readReport(join(cwd, 'r.json')));
  }, 60_000);

  it("the step's code and outputs agree whatever payconform says: 0 with a report where nothing ran or with none is INCOMPLETE (4), a report contradicting its code is 70, the members' order does not matter", async () => {
    const cwd = emptyFolder();
    // A real report and summary of a pass (one check), for the stand-in below to hand over.
    const made = await passReport();
    copyFileSync(made.markdown, join(cwd, 'prepared.md'));
    const pass = JSON.parse(readFileSync(made.json, 'utf8')) as Record<string, unknown>;
    // A TEST ONLY stand-in for payconform: `report fields` is the real executable's; an audit copies prepared.json and
    // prepared.md (when there) to its --report paths and exits with the code in ./code.
    const fake = join(cwd, 'fake-payconform');
    writeFileSync(
      fake,
      [
        '#!/bin/bash',
        `case "$1" in report) exec "${built.executable}" "$@" ;; esac`,
        'for a in "$@"; do case "$a" in',
        '  json:*) if [ -f prepared.json ]; then cp prepared.json "${a#json:}"; fi ;;',
        '  markdown:*) cp prepared.md "${a#markdown:}" ;;',
        'esac; done',
        'exit "$(cat code)"',
        '',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    const step = async (code: number, report: unknown) => {
      writeFileSync(join(cwd, 'code'), String(code));
      rmSync(join(cwd, 'prepared.json'), { force: true });
      if (report !== undefined) writeFileSync(join(cwd, 'prepared.json'), JSON.stringify(report));
      const run = await action({ executable: fake }, cwd);
      expect(run.outputs['audit']?.['exit-code'], run.stderr).toBe(String(run.code));
      return run;
    };
    // Members in reverse order: read all the same.
    const reversed = Object.fromEntries(Object.entries(pass).reverse());
    expectOutputsOf(await step(0, reversed), { verdict: 'pass', exitCode: 0 });
    // Exit 0 and a report of a pass in which no check ran (the found case: outputs said pass, the heading PASS).
    const counts = { pass: 0, fail: 0, warn: 0, skip: 3, 'n/a': 0, error: 0 };
    const nothing = await step(0, { ...pass, counts, results: [] });
    expectOutputsOf(nothing, { verdict: 'incomplete', exitCode: 4 });
    expect(nothing.summary).not.toContain('PASS (exit 0)');
    expect(nothing.summary).toContain('no check ran');
    // Exit 0 and no report at all.
    const none = await step(0, undefined);
    expectOutputsOf(none, { verdict: 'incomplete', exitCode: 4 });
    expect(none.outputs['audit']?.['report']).toBe('');
    expect(none.summary).toContain('no report was written');
    // A report of a pass from a payconform that exited 1.
    const contradicted = await step(1, pass);
    expectOutputsOf(contradicted, { verdict: 'error', exitCode: 70 });
    expect(contradicted.summary).toContain('the report says pass (exit 0) but payconform exited 1');
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
      // TEST ONLY. No 8 characters of it in a check id: a longer piece of the secret is masked wherever it appears
      // ("client-s..." once masked the ids of the client-signature-* checks into a report its schema refuses).
      ...signingEnv('test-only-Zq8vK3xT2mLp9WdR', keys.clientEd25519),
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
        expect(readdirSync(cwd), `${input}=${JSON.stringify(value)}`).toEqual([]);
        expect(existsSync(join(root, 'pwned'))).toBe(false);
        if (run.ran.includes('audit'))
          expect(run.outputs['audit']).toMatchObject({ verdict: 'error', 'exit-code': '2' });
      }
    },
    120_000,
  );
});

describe('the Action: a password in the target URL', () => {
  it('in the forms the URL parser reads as user information with no `//`, is in no output: summary, log, outputs, reports', async () => {
    const password = 'pw-in-the-url-7c4e';
    // The three forms with no `//` (every form, and every output of the CLI: secrets-in-every-output.property.test.ts).
    for (const form of ['http:/', 'http:\\\\', 'http:']) {
      const cwd = emptyFolder();
      const run = await local(
        {
          target: `${form}user:${password}@127.0.0.1:9`,
          'explore-seconds': '0',
          reports: 'json:r.json\nhtml:r.html\njunit:r.xml\nmarkdown:r.md',
        },
        cwd,
      );
      expect(run.code, form).toBe(2);
      const files = readdirSync(cwd).map((f) => readFileSync(join(cwd, f), 'utf8'));
      expect(files).toHaveLength(4);
      for (const text of [run.summary, run.stderr, JSON.stringify(run.outputs), ...files])
        expect(text, form).not.toContain(password);
      expect(run.summary, form).toContain('[REDACTED]@127.0.0.1:9');
    }
  }, 60_000);
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

describe('docs/ci.md: the first-run commands and the shell recipe, as written', () => {
  it('make the attestation key and the first baseline; then the recipe downloads, checks, audits with that baseline, diffs with the last run and verifies the attestation', async () => {
    const text = readFileSync(join(root, 'docs/ci.md'), 'utf8');
    const block = (name: string): string => {
      const found = new RegExp(
        `<!-- recipe: ${name}[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``,
      ).exec(text)?.[1];
      expect(found, name).toBeDefined();
      return found!;
    };
    const cwd = emptyFolder();
    const serve = await serveHere(cwd, []);
    try {
      // The repository as the docs keep it: the conformance config (here the one serve wrote for itself).
      mkdirSync(join(cwd, 'conformance'));
      copyFileSync(join(cwd, 'a.json'), join(cwd, 'conformance/payconform.json'));
      const creds = readCredentials(join(cwd, 'creds.env'));
      // The explorer runs; what it finds is not this test's point.
      const common = { HOME: cwd, PAYCONFORM_EXPLORE_SECONDS: '1', ...creds };
      // Once, on the user's machine: payconform on PATH (the executable, renamed) and openssl.
      const bin = mkdtempSync(join(work, 'bin-'));
      symlinkSync(built.executable, join(bin, 'payconform'));
      writeFileSync(join(cwd, 'once.sh'), block('once'));
      const once = await runProcess('sh', ['once.sh'], {
        cwd,
        env: { ...common, PATH: `${bin}:${toolsPath}` },
        timeoutMs: 120_000,
      });
      // serve's config has no webhook listener, so the webhook checks are skipped: 4, as the docs say.
      expect([0, 4], once.stdout + once.stderr).toContain(once.code);
      expect(readFileSync(join(cwd, 'conformance/attest.pub'), 'utf8')).toMatch(
        /^-----BEGIN PUBLIC KEY-----/,
      );
      expect(
        JSON.parse(readFileSync(join(cwd, 'conformance/baseline.json'), 'utf8')),
      ).toMatchObject({
        baselineVersion: '1',
      });
      // In CI: the secret is the text of attest.key; the executable is downloaded, not on PATH.
      writeFileSync(join(cwd, 'recipe.sh'), block('shell'));
      const env = {
        ...common,
        PATH: toolsPath,
        PAYCONFORM_VERSION: version,
        PAYCONFORM_RELEASES: releases.url,
        PAYCONFORM_ATTEST_KEY: readFileSync(join(cwd, 'attest.key'), 'utf8'),
      };
      const args = ['recipe.sh'];
      const first = await runProcess('sh', args, { cwd, env, timeoutMs: 180_000 });
      expect(first.stdout + first.stderr).toMatch(/verified: signed by keyid/);
      expect(first.stdout + first.stderr).not.toContain('regressed');
      expect(existsSync(join(cwd, 'previous/payconform.json'))).toBe(true);
      const second = await runProcess('sh', args, { cwd, env, timeoutMs: 180_000 });
      expect(second.stdout + second.stderr).toMatch(/verified: signed by keyid/);
      expect(second.stdout).toMatch(/regress|fixed|changed|no change/i);
      // The recipe's status is the audit's (4 here, for the skips), the same both times.
      expect([0, 4]).toContain(first.code);
      expect(first.code).toBe(second.code);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 240_000);
});

// The Action's install step (action/install.sh) against mirrors it must not trust: a download is checked against the
// SHA-256 that `npm run release:pin` (scripts/pin-action.ts) pinned in the Action's own files, never against a file
// served beside it, and is never run before it matches; https:// only (plain http:// only to loopback, and only under
// the test-only PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK=1); a fresh private folder, never a planted link. The step runs
// as action.yml maps its inputs, with no node on PATH, from a copy of the Action the release step pinned; the mirror
// is HTTPS on loopback with a generated test CA that curl is told to trust (CURL_CA_BUNDLE). The executables are small
// shell scripts (the real one is downloaded and run by test/ci-recipes.test.ts): one that answers --version, and an
// impostor that leaves a marker file if anything runs it.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLoopbackTls } from '../net/tls.js';
import { executableName, versionMarker } from '../scripts/build-binary.js';
import { CHECKSUMS_FILE, parsePins, pinExecutables } from '../scripts/pin-action.js';
import { readAction } from './fixtures/action-runner.js';
import { pathWithout, runProcess, type Ran } from './fixtures/executable.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
/** A version no release of this Action pins: what a user's own build on a mirror would be. */
const UNPINNED = '0.0.1-own';
const TOOLS = ['bash', 'sed', 'head', 'uname', 'curl', 'sha256sum', 'chmod', 'mktemp', 'tr', 'rm'];
const toolsPath = pathWithout(TOOLS);
const work = mkdtempSync(join(tmpdir(), 'payconform-action-install-test-'));
/** Where the impostor leaves its marker if anything runs it. */
const marker = join(work, 'impostor-ran');
const sha256 = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A stand-in executable of `v` that answers --version, with build:binary's version marker inside. */
const genuine = (v: string): string =>
  `#!/bin/bash\n#${versionMarker(v)}[ "$1" = --version ] && echo ${v}\n`;
/** Another program: it says it is the version asked for, after leaving the marker. */
const impostor = `#!/bin/bash\n: > ${JSON.stringify(marker)}\necho ${version}\n`;

interface Mirror {
  readonly url: string;
  readonly requested: string[];
  close(): void;
}

/** Serves `files` (path → bytes) over HTTPS (or HTTP) on loopback, recording each path asked for. */
async function serve(files: ReadonlyMap<string, string>, tls?: { cert: string; key: string }) {
  const requested: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    requested.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200).end(body);
  };
  const server = tls === undefined ? http.createServer(handler) : https.createServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    requested,
    close: () => server.close(),
  } satisfies Mirror;
}

let caFile: string;
let actionRoot: string;
let honest: Mirror;
let hostile: Mirror;
let plain: Mirror;
const name = (v: string): string => executableName(v);

beforeAll(async () => {
  const tls = await generateLoopbackTls();
  caFile = join(work, 'test-ca.pem');
  writeFileSync(caFile, tls.caCert);
  // The release step: build:binary's output (here the stand-in) pinned into a copy of the Action.
  const release = join(work, 'release');
  mkdirSync(release);
  writeFileSync(join(release, name(version)), genuine(version));
  actionRoot = join(work, 'action-root');
  mkdirSync(actionRoot);
  for (const path of ['action.yml', 'package.json', 'action'])
    cpSync(join(root, path), join(actionRoot, path), { recursive: true });
  expect(pinExecutables({ releaseDir: release, actionRoot, version }).added).toEqual([
    name(version),
  ]);
  const at = (v: string, file: string) => `/v${v}/${file}`;
  honest = await serve(
    new Map([
      [at(version, name(version)), genuine(version)],
      [at(UNPINNED, name(UNPINNED)), genuine(UNPINNED)],
    ]),
    tls,
  );
  // A mirror serving another program under the same name, with that program's own checksum beside it.
  hostile = await serve(
    new Map([
      [at(version, name(version)), impostor],
      [at(version, `${name(version)}.sha256`), `${sha256(impostor)}  ${name(version)}\n`],
    ]),
    tls,
  );
  plain = await serve(new Map([[at(version, name(version)), genuine(version)]]));
}, 60_000);

afterAll(() => {
  for (const mirror of [honest, hostile, plain]) mirror?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Install extends Ran {
  /** The `executable` output, when the step wrote one. */
  readonly executable?: string;
}

/**
 * Runs action.yml's install step of `actionRoot` as the runner does: its `env:` from `inputs` (or the defaults), the
 * caller's environment (PATH without node, curl trusting the test CA); RUNNER_TEMP only when `env` gives one.
 */
async function install(
  inputs: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = {},
): Promise<Install> {
  const action = readAction(actionRoot);
  const step = action.runs.steps.find((s) => s.id === 'install')!;
  const stepEnv: NodeJS.ProcessEnv = {
    PATH: toolsPath,
    CURL_CA_BUNDLE: caFile,
    RUNNER_TEMP: mkdtempSync(join(work, 'runner-temp-')),
    ...env,
    GITHUB_ACTION_PATH: actionRoot,
    GITHUB_OUTPUT: join(mkdtempSync(join(work, 'output-')), 'output'),
  };
  for (const [key, value] of Object.entries(step.env ?? {})) {
    const input = /^\$\{\{ inputs\.([a-z0-9-]+) \}\}$/.exec(value)![1]!;
    stepEnv[key] = inputs[input] ?? action.inputs[input]!.default ?? '';
  }
  for (const [key, value] of Object.entries(stepEnv)) if (value === undefined) delete stepEnv[key];
  writeFileSync(stepEnv['GITHUB_OUTPUT']!, '');
  const ran = await runProcess(
    'bash',
    ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run],
    {
      cwd: work,
      env: stepEnv,
      timeoutMs: 60_000,
    },
  );
  const output = /^executable=(.*)$/m.exec(readFileSync(stepEnv['GITHUB_OUTPUT']!, 'utf8'));
  return { ...ran, ...(output === null ? {} : { executable: output[1]! }) };
}

describe('npm run release:pin: the checksums the Action reads', () => {
  it(`${CHECKSUMS_FILE} as committed: notes and "<sha256>  payconform-<version>-<os>-<arch>" lines, each name once`, () => {
    const pins = parsePins(readFileSync(join(root, CHECKSUMS_FILE), 'utf8'));
    for (const [file, digest] of pins)
      expect(`${digest}  ${file}`).toMatch(/^[0-9a-f]{64} {2}payconform-/);
  });

  it("pins each executable's own digest, once: the same again is a no-op, another digest is refused", () => {
    const pinned = parsePins(readFileSync(join(actionRoot, CHECKSUMS_FILE), 'utf8'));
    expect(pinned.get(name(version))).toBe(sha256(genuine(version)));
    const release = mkdtempSync(join(work, 'release-'));
    writeFileSync(join(release, name(version)), genuine(version));
    expect(pinExecutables({ releaseDir: release, actionRoot, version }).added).toEqual([]);
    writeFileSync(join(release, name(version)), `${genuine(version)}# rebuilt\n`);
    expect(() => pinExecutables({ releaseDir: release, actionRoot, version })).toThrow(
      /is pinned as [0-9a-f]{64}; a released executable never changes/,
    );
    writeFileSync(join(release, name(version)), impostor);
    expect(() => pinExecutables({ releaseDir: release, actionRoot, version })).toThrow(
      /no payconform .* version marker inside/,
    );
  });
});

describe('action/install.sh: a download is what the Action pinned, or it is not run', () => {
  it('installs the pinned executable from an HTTPS mirror, fetching nothing beside it', async () => {
    honest.requested.length = 0;
    const ran = await install({ 'release-url': honest.url });
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(ran.executable!, 'utf8')).toBe(genuine(version));
    expect(honest.requested).toEqual([`/v${version}/${name(version)}`]);
  });

  it('a mirror serving another program with its own checksum: refused, never run, nothing installed', async () => {
    hostile.requested.length = 0;
    const ran = await install({ 'release-url': hostile.url });
    expect(existsSync(marker), 'the impostor ran').toBe(false);
    expect(ran.stderr).toContain(`has SHA-256 ${sha256(impostor)}, not the expected`);
    expect(ran.code).toBe(2);
    expect(ran.executable).toBeUndefined();
    expect(hostile.requested).toEqual([`/v${version}/${name(version)}`]); // its .sha256 is never asked for
  });

  it('a version this Action pins nothing for is refused before any download, unless the checksum input names it', async () => {
    honest.requested.length = 0;
    const refused = await install({ 'release-url': honest.url, version: UNPINNED });
    expect(refused.stderr).toContain(`pins no SHA-256 for ${name(UNPINNED)}`);
    expect(refused.stderr).toContain('checksum input');
    expect(refused.code).toBe(2);
    expect(honest.requested).toEqual([]);
    const wrong = await install({
      'release-url': honest.url,
      version: UNPINNED,
      checksum: sha256(impostor),
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('not the expected');
    const given = await install({
      'release-url': honest.url,
      version: UNPINNED,
      checksum: sha256(genuine(UNPINNED)).toUpperCase(),
    });
    expect(given.code, given.stderr).toBe(0);
    expect(readFileSync(given.executable!, 'utf8')).toBe(genuine(UNPINNED));
  });

  it.each(['x; touch pwned', `${'0'.repeat(63)}\ntouch pwned`, '$(touch pwned)', 'abc'])(
    'checksum input %j: a usage error (exit 2) before any download',
    async (value) => {
      honest.requested.length = 0;
      const ran = await install({ 'release-url': honest.url, checksum: value });
      expect(ran.stderr).toContain('input checksum must be a SHA-256: 64 hexadecimal digits');
      expect(ran.code).toBe(2);
      expect(honest.requested).toEqual([]);
      expect(existsSync(join(work, 'pwned'))).toBe(false);
    },
  );

  it('plain http:// is refused; only the test-only variable lets it reach a loopback mirror', async () => {
    const refused = await install({ 'release-url': plain.url });
    expect(refused.stderr).toContain('release-url must be an https:// URL');
    expect(refused.code).toBe(2);
    const elsewhere = await install(
      { 'release-url': 'http://payconform.example' },
      { PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK: '1' },
    );
    expect(elsewhere.code).toBe(2);
    expect(plain.requested).toEqual([]);
    const loopback = await install(
      { 'release-url': plain.url },
      { PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK: '1' },
    );
    expect(loopback.code, loopback.stderr).toBe(0);
    expect(plain.requested).toEqual([`/v${version}/${name(version)}`]);
  });

  it('RUNNER_TEMP unset: a link planted at $TMPDIR/payconform-<version> is not followed; a fresh 0700 folder is used', async () => {
    const temp = mkdtempSync(join(work, 'tmpdir-'));
    const victim = mkdtempSync(join(work, 'victim-'));
    symlinkSync(victim, join(temp, `payconform-${version}`));
    const ran = await install(
      { 'release-url': honest.url },
      { RUNNER_TEMP: undefined, TMPDIR: temp },
    );
    expect(readdirSync(victim), 'written through the planted link').toEqual([]);
    expect(ran.code, ran.stderr).toBe(0);
    const folder = dirname(ran.executable!);
    expect(dirname(realpathSync(folder))).toBe(realpathSync(temp));
    expect(lstatSync(folder).isSymbolicLink()).toBe(false);
    expect(lstatSync(folder).mode & 0o777).toBe(0o700);
  });
});

// The README's first audit, run as written: its two blocks in `sh`, in a new folder where `npx payconform` is the
// package of this checkout (node_modules/.bin/payconform runs cli/bin.ts from sources through tsx: tests never depend
// on a fresh build). The first block (serve) stays in the foreground, as the README says; the second runs, in the
// same folder, once the first has printed what the README says to wait for. Only the two fixed ports are swapped for
// free ones (test files run side by side). The audit ends PASS, exit 0, with both reports written, and the secrets
// dev.env holds are in neither block's output. Budget: two processes started from sources, the README's audit with
// the explorer's default 15 s: about 25 s.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, REPO_ROOT } from './fixtures/cli.js';
import { readCredentials } from './fixtures/executable.js';
import { unusedLoopbackPort } from './fixtures/ports.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
/** The folder the blocks run in and npm's home, removed after the file. */
const work = mkdtempSync(join(tmpdir(), 'payconform-readme-first-audit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The `sh` block after the README's `<!-- first-audit: NAME ... -->` marker. */
function block(name: string): string {
  const m = new RegExp(`<!-- first-audit: ${name}[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(
    readme,
  );
  if (m === null) throw new Error(`README: no first-audit block "${name}"`);
  return m[1]!;
}

/** A shell in `cwd` running `script`, in a process group of its own (so serve and what npx starts stop with it). */
function shell(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; done: Promise<number | null> } {
  const child = spawn('sh', ['-c', script], { cwd, env, detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const done = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, output: () => output, done };
}

/** Stops the shell's process group (sh, npx and the payconform it started), if it is still there. */
function stop(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already ended
  }
}

/** The shell's exit code; stopped (SIGKILL) when it has not ended within `timeoutMs`. */
async function endWithin(run: ReturnType<typeof shell>, timeoutMs: number): Promise<number | null> {
  const timer = setTimeout(() => stop(run.child, 'SIGKILL'), timeoutMs);
  try {
    return await run.done;
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `text` is in the output, or rejects at `timeoutMs` (or when the shell ends first). */
function waitFor(run: ReturnType<typeof shell>, text: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no "${text}" in ${timeoutMs} ms`)), timeoutMs);
    const check = (): void => {
      if (run.output().includes(text)) finish();
    };
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      run.child.stdout!.off('data', check);
      run.child.stderr!.off('data', check);
      if (error === undefined) resolve();
      else reject(new Error(`${error.message}:\n${run.output()}`));
    };
    run.child.stdout!.on('data', check);
    run.child.stderr!.on('data', check);
    void run.done.then(() => finish(new Error('the shell ended first')));
    check();
  });
}

describe('README: the first audit, as written', () => {
  it('serve in one terminal; then . ./dev.env and audit server --config audit.json: PASS, exit 0, the reports written', async () => {
    const [port, hooks] = await Promise.all([unusedLoopbackPort(), unusedLoopbackPort()]);
    const serveBlock = block('serve');
    expect(serveBlock).toContain('--port 8080');
    expect(serveBlock).toContain('127.0.0.1:8099/');
    const cwd = mkdtempSync(join(work, 'cwd-'));
    // `npx payconform` here is this checkout's command, from sources (as an installed package's bin would be).
    mkdirSync(join(cwd, 'node_modules/.bin'), { recursive: true });
    const bin = join(cwd, 'node_modules/.bin/payconform');
    writeFileSync(
      bin,
      `#!/bin/sh\nexec '${process.execPath}' ${CLI_ARGS.map((a) => `'${a}'`).join(' ')} "$@"\n`,
    );
    chmodSync(bin, 0o755);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'],
      HOME: mkdtempSync(join(work, 'home-')),
      NO_COLOR: '1',
      npm_config_offline: 'true', // npx finds the local command; nothing is fetched
      npm_config_update_notifier: 'false',
    };
    const serve = shell(
      serveBlock.replaceAll('8080', String(port)).replaceAll(':8099/', `:${hooks}/`),
      cwd,
      env,
    );
    try {
      await waitFor(serve, 'Ctrl-C stops.', 60_000);
      const audit = shell(block('audit'), cwd, env);
      const code = await endWithin(audit, 120_000);
      expect(audit.output()).toMatch(/\d+ passed, 0 failed, \d+ warnings, 0 skipped/);
      expect(audit.output()).toContain('verdict: PASS');
      expect(code, audit.output()).toBe(0);
      expect(existsSync(join(cwd, 'audit.xml'))).toBe(true);
      expect(existsSync(join(cwd, 'audit.html'))).toBe(true);
      const secrets = readCredentials(join(cwd, 'dev.env'));
      for (const name of ['PAYCONFORM_APPLICATION_SECRET', 'PAYCONFORM_PRIVATE_KEY']) {
        expect(secrets[name], name).toBeDefined();
        expect(serve.output() + audit.output()).not.toContain(secrets[name]);
      }
    } finally {
      stop(serve.child, 'SIGTERM');
      await serve.done;
    }
  }, 180_000);
});

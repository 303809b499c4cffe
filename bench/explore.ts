// The explorer's speed (`npm run bench` runs it as a child process; alone: tsx bench/explore.ts [--seconds S] [--json]):
// explored steps per second against the embedded service (in this process) and against `payconform serve` in another
// process over loopback (configured from its --write-audit-config file, as a user would), on the clean service, one
// seed, no failure to shrink. Steps: commands run plus the end-of-sequence webhook wait of each sequence.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareExternalTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { loadConfig } from '../conformance/config/config.js';
import { EXPLORE_DEFAULTS, explore, type ExploreOutcome } from '../conformance/explore/explorer.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, json: { type: 'boolean' }, lanes: { type: 'string' } },
});
const seconds = Math.min(120, Math.max(1, Number(values.seconds ?? 5) || 5));
// --lanes N: sequences side by side (default: the explorer's own, EXPLORE_DEFAULTS.lanes; 1 is the explorer before it
// ran lanes, for comparison).
const lanes = Math.min(16, Math.max(1, Number(values.lanes ?? EXPLORE_DEFAULTS.lanes) || 1));
const settings = { runs: 100_000, seconds, shrinkSeconds: 1, seed: 1, lanes };
const env = () => ({ signal: new AbortController().signal, deadline: Date.now() + 600_000 });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function embedded(): Promise<ExploreOutcome> {
  const t = await startEmbeddedTarget();
  try {
    return await explore(t.context, env(), settings);
  } finally {
    await t.close();
  }
}

/** `payconform serve` in a child process, audited through the config file and the credentials file it writes. */
async function overLoopback(): Promise<ExploreOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'payconform-bench-explore-'));
  const file = join(dir, 'audit.json');
  const [port, hooks] = await Promise.all([freePort(), freePort()]);
  const bin = fileURLToPath(new URL('../cli/bin.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      bin,
      'serve',
      '--port',
      String(port),
      '--webhook-url',
      `http://127.0.0.1:${hooks}/hooks`,
      '--lifecycle-ms',
      '250',
      '--write-audit-config',
      file,
      '--credentials-out',
      join(dir, 'dev.env'),
      '--no-portal',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('payconform serve did not start in 30 s')),
        30_000,
      );
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        banner += chunk;
        if (banner.includes('Ctrl-C stops.')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error('payconform serve exited')));
    });
    // The generated secrets are written to --credentials-out (mode 0600), never to the banner.
    const written = readFileSync(join(dir, 'dev.env'), 'utf8');
    const printed = (name: string): string =>
      new RegExp(`^export ${name}=(\\S+)$`, 'm').exec(written)?.[1] ?? '';
    const names = [
      'PAYCONFORM_APPLICATION_ID',
      'PAYCONFORM_KEY_ID',
      'PAYCONFORM_APPLICATION_SECRET',
      'PAYCONFORM_PRIVATE_KEY',
    ];
    const loaded = await loadConfig(file, Object.fromEntries(names.map((n) => [n, printed(n)])));
    if (!loaded.ok) throw new Error(loaded.message);
    const target = await prepareExternalTarget(`http://127.0.0.1:${port}`, loaded.config, 5_000);
    try {
      return await explore(target.context, env(), settings);
    } finally {
      await target.close();
    }
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Array<{
  name: string;
  opsPerSec: number;
  steps: number;
  sequences: number;
  seconds: number;
}> = [];
for (const [name, run] of [
  ['explore-steps-embedded', embedded],
  ['explore-steps-loopback-serve', overLoopback],
] as const) {
  const o = await run();
  if (o.failure !== undefined || o.error !== undefined)
    throw new Error(
      `${name}: the clean service gave a finding: ${o.error ?? o.failure?.violation.message}`,
    );
  const s = o.elapsedMs / 1000;
  rows.push({
    name,
    opsPerSec: Math.round((o.steps / s) * 10) / 10,
    steps: o.steps,
    sequences: o.runs,
    seconds: Math.round(s * 10) / 10,
  });
}
if (values.json) for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
else
  for (const r of rows)
    process.stdout.write(
      `${r.name.padEnd(30)} ${String(r.opsPerSec).padStart(8)} steps/s (${r.steps} steps, ${r.sequences} sequences in ${r.seconds} s, ${lanes} lane(s))\n`,
    );

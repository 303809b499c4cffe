// The state hook's cost to the explorer (`npm run bench:state-hook`; docs/state-hook.md, "How fast"): explored steps
// per second against `payconform serve --sandbox-path /private-helpers` in another process (configured from its
// --write-audit-config file, as a user would), its payments made by the Python starter hook
// (vectors/adapters/python/state_hook.py) served as a URL, run as a command per request, and run once as a command
// answering request lines (`"lines": true`). Rounds alternate the forms (url, command, lines, url, ...), each
// exploration on a fresh service; a form's figure is the median of its rounds, and a ratio is the median of the
// per-round ratios (figures of one round were measured seconds apart).
// Usage: tsx bench/state-hook.ts [--seconds S] [--rounds R] [--lanes N] [--forms url,command,lines] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareExternalTarget } from '../cli/commands/audit-server.js';
import { loadConfig } from '../conformance/config/config.js';
import { EXPLORE_DEFAULTS, explore } from '../conformance/explore/explorer.js';
import { startStarterHook, STARTER_HOOK } from '../test/fixtures/explore-targets.js';
import { median } from './harness.js';
import { awaitServeReady } from './serve-child.js';
import { parseBenchFlags, UsageError } from './usage.js';

const FORMS = ['url', 'command', 'lines'] as const;
type Form = (typeof FORMS)[number];
const PRIVATE = '/private-helpers';
const SERVE_START_MS = 30_000;
/** The explorer's own request timeout against a target given by URL (the CLI's default, --timeout). */
const REQUEST_TIMEOUT_MS = 5_000;

const USAGE = `usage: tsx bench/state-hook.ts [--seconds S] [--rounds R] [--lanes N] [--forms url,command,lines] [--json]
  --seconds S   seconds of exploring per form and round (default 8, at most 120)
  --rounds R    alternating rounds; each figure is the median (default 3, at most 15)
  --lanes N     the explorer's quick lanes (default ${EXPLORE_DEFAULTS.lanes}, at most 16)
  --forms LIST  the hook's forms to measure, in round order (default url,command,lines)
  --json        one {"name","opsPerSec","rounds"} JSON line per form on stdout, nothing else
`;

function options(argv: readonly string[]) {
  const v = parseBenchFlags(argv, {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    lanes: { type: 'string' },
    forms: { type: 'string' },
    json: { type: 'boolean' },
  });
  const int = (raw: string | undefined, flag: string, fallback: number, max: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > max)
      throw new UsageError(`--${flag} must be an integer from 1 to ${max}`);
    return n;
  };
  const forms = (v.forms ?? FORMS.join(',')).split(',');
  for (const f of forms)
    if (!(FORMS as readonly string[]).includes(f))
      throw new UsageError(`--forms takes ${FORMS.join(', ')}; got "${f}"`);
  return {
    seconds: int(v.seconds, 'seconds', 8, 120),
    rounds: int(v.rounds, 'rounds', 3, 15),
    lanes: int(v.lanes, 'lanes', EXPLORE_DEFAULTS.lanes, 16),
    forms: forms as Form[],
    json: v.json === true,
  };
}

/** A free loopback port (for the audit's webhook listener, which the service is told to deliver to). */
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

/** The credentials `serve --credentials-out` wrote, as the environment the config names them in. */
function credentials(file: string): Record<string, string> {
  const written = readFileSync(file, 'utf8');
  return Object.fromEntries(
    [...written.matchAll(/^export (PAYCONFORM_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

/** One exploration of `seconds` against a fresh `payconform serve`, the hook in `form`: steps and seconds. */
async function exploreOnce(
  form: Form,
  seconds: number,
  lanes: number,
): Promise<{ steps: number; seconds: number; payments: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'payconform-bench-state-hook-'));
  const config = join(dir, 'audit.json');
  const bin = fileURLToPath(new URL('../cli/bin.ts', import.meta.url));
  const hooks = await freePort();
  const args = [
    'serve',
    '--port',
    '0',
    '--webhook-url',
    `http://127.0.0.1:${hooks}/hooks`,
    '--lifecycle-ms',
    '250',
    '--sandbox-path',
    PRIVATE,
    '--write-audit-config',
    config,
    '--credentials-out',
    join(dir, 'dev.env'),
    '--no-portal',
  ];
  const child = spawn(process.execPath, [...process.execArgv, bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serve = await awaitServeReady(child, args, SERVE_START_MS);
  const baseUrl = `http://127.0.0.1:${serve.port}`;
  const backend = `${baseUrl}${PRIVATE}`;
  const server = form === 'url' ? await startStarterHook(backend) : undefined;
  try {
    const command = ['env', `STATE_HOOK_BACKEND=${backend}`, 'python3', STARTER_HOOK];
    const stateHook =
      form === 'url'
        ? { url: server!.url }
        : form === 'command'
          ? { command }
          : { command: [...command, '--lines'], lines: true };
    const file = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    writeFileSync(config, JSON.stringify({ ...file, stateHook }));
    const loaded = await loadConfig(config, credentials(join(dir, 'dev.env')));
    if (!loaded.ok) throw new Error(loaded.message);
    const target = await prepareExternalTarget(baseUrl, loaded.config, REQUEST_TIMEOUT_MS);
    try {
      const env = { signal: new AbortController().signal, deadline: Date.now() + 600_000 };
      const o = await explore(target.context, env, {
        runs: 100_000,
        seconds,
        shrinkSeconds: 1,
        seed: 1,
        lanes,
      });
      if (o.failure !== undefined || o.error !== undefined)
        throw new Error(`${form}: ${o.error ?? o.failure?.violation.message}`);
      return { steps: o.steps, seconds: o.elapsedMs / 1000, payments: o.cost.payments };
    } finally {
      await target.close(); // stops a command that stays
    }
  } finally {
    await server?.stop();
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let o;
  try {
    o = options(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${USAGE}`);
    return 2;
  }
  const perRound = new Map<Form, number[]>(o.forms.map((f) => [f, []]));
  for (let round = 0; round < o.rounds; round++)
    for (const form of o.forms) {
      const r = await exploreOnce(form, o.seconds, o.lanes);
      const rate = r.steps / r.seconds;
      perRound.get(form)!.push(rate);
      if (!o.json)
        process.stderr.write(
          `round ${round + 1} ${form.padEnd(8)} ${rate.toFixed(1)} steps/s (${r.steps} steps, ${r.payments} payments made through the hook, ${r.seconds.toFixed(1)} s)\n`,
        );
    }
  const rows = o.forms.map((form) => ({
    name: `explore-steps-state-hook-${form}`,
    opsPerSec: Math.round(median(perRound.get(form)!) * 10) / 10,
    rounds: perRound.get(form)!.map((r) => Math.round(r * 10) / 10),
  }));
  if (o.json) {
    for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  }
  for (const r of rows)
    process.stdout.write(
      `${r.name.padEnd(36)} ${String(r.opsPerSec).padStart(7)} steps/s  (rounds: ${r.rounds.join(', ')})\n`,
    );
  const url = perRound.get('url');
  for (const form of o.forms.filter((f) => f !== 'url')) {
    if (url === undefined) break;
    const ratio = median(perRound.get(form)!.map((r, i) => r / url[i]!));
    process.stdout.write(`${form} ÷ url (median of per-round ratios): ${ratio.toFixed(2)}\n`);
  }
  process.stdout.write(
    `${o.seconds} s per exploration, ${o.lanes} quick lane(s), ${o.rounds} round(s); node ${process.version}; ratios compare figures of this run only\n`,
  );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));

// `npm run bench:load`: keeps one core busy, as another job on a shared CI machine would, while something else is
// measured (`npm run bench:suite -- --load` starts it beside each run of the suite). It is one process spinning at
// normal priority, like `yes > /dev/null`: it asks for a whole core and the kernel shares the cores between it and
// everything else. At the end it prints the share of one core it really had (its CPU time over its wall time, from
// /proc), so a reader sees how much load was there.
// Usage: tsx bench/load.ts [--seconds N]   (until Ctrl-C, or N seconds; at most one hour)

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE =
  'usage: npm run bench:load -- [--seconds N]\n  --seconds N  stop after N seconds, 1 to 3600 (default: until Ctrl-C, at most 3600)\n';
/** No load runs longer than this, whatever asked for it: every loop here is bounded. */
export const MAX_LOAD_SECONDS = 3600;

/** What a load did: how long it ran, the CPU it had, and that as a share of one core (1 = a whole core). */
export interface LoadReport {
  readonly wallSeconds: number;
  /** Undefined where /proc cannot be read (not Linux). */
  readonly cpuSeconds: number | undefined;
  readonly coreShare: number | undefined;
}

export interface Load {
  /** The CPU seconds the busy process has used so far (undefined where /proc cannot be read). */
  cpuSeconds(): number | undefined;
  /** Stops the busy process and reports what it had. */
  stop(): Promise<LoadReport>;
}

/**
 * The busy loop: spins until its own deadline (a bound even if nobody stops it), and ends at once when its parent is
 * gone (a killed bench:suite or bench:load leaves no spinner behind).
 */
const SPIN = (seconds: number): string =>
  `const end = Date.now() + ${seconds * 1000}; const parent = process.ppid; let x = 0; while (Date.now() < end && process.ppid === parent) { for (let i = 0; i < 1e5; i++) x = (x * 31 + i) | 0; }`;

/** CPU seconds a process has used (user + system), from /proc/PID/stat; undefined when it cannot be read. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks; 100 a second on Linux.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Starts one busy process, for at most `seconds` (it stops itself then, even if nobody stops it). */
export function startLoad(seconds = MAX_LOAD_SECONDS): Load {
  const bounded = Math.min(Math.max(1, seconds), MAX_LOAD_SECONDS);
  const child: ChildProcess = spawn(process.execPath, ['-e', SPIN(bounded)], { stdio: 'ignore' });
  const started = performance.now();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    cpuSeconds: () => (child.pid === undefined ? undefined : cpuSecondsOf(child.pid)),
    async stop(): Promise<LoadReport> {
      const wallSeconds = (performance.now() - started) / 1000;
      const cpuSeconds = child.pid === undefined ? undefined : cpuSecondsOf(child.pid);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      return {
        wallSeconds,
        cpuSeconds,
        coreShare: cpuSeconds === undefined ? undefined : cpuSeconds / wallSeconds,
      };
    },
  };
}

/** One line for a person: how long, and the share of a core the load had. */
export function describeLoad(report: LoadReport): string {
  const share =
    report.coreShare === undefined
      ? 'its CPU time unknown (no /proc)'
      : `${Math.round(report.coreShare * 100)} % of one core (${report.cpuSeconds!.toFixed(1)} CPU-s)`;
  return `load: ${report.wallSeconds.toFixed(1)} s, ${share}`;
}

async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { seconds: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(
      `bench:load: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`,
    );
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const seconds = values.seconds === undefined ? MAX_LOAD_SECONDS : Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_LOAD_SECONDS) {
    process.stderr.write(`bench:load: --seconds must be a whole number from 1 to 3600\n${USAGE}`);
    return 2;
  }
  const load = startLoad(seconds);
  process.stderr.write(`bench:load: one core busy for ${seconds} s at most (Ctrl-C stops it)\n`);
  const stopped = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        clearTimeout(timer);
        resolve();
      });
  });
  await stopped;
  process.stdout.write(`${describeLoad(await load.stop())}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));

// `npm run bench:host`: how steady this machine's CPU is, before trusting ratios measured on it (a benchmark, never a
// timed test). One thread verifies the same 64 Ed25519 signatures (node:crypto, synchronous) in back-to-back windows
// of 50 ms for a few seconds, then prints each window's rate in hundreds per second, in order, and the spread. On a
// quiet dedicated core the windows agree within a few per cent; a virtual machine whose host shares the core shows
// levels that change every few hundred milliseconds, which no ratio measured at a finer grain than that can cancel.
// Usage: tsx bench/host-steadiness.ts [--seconds N] [--json]

import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { parseArgs } from 'node:util';
import { median, percentile } from './harness.js';

const USAGE =
  'usage: npm run bench:host -- [--seconds N] [--json]\n  --seconds N  how long to measure, 1 to 60 (default 8)\n';
const WINDOW_MS = 50;
const MESSAGES = 64;

interface Steadiness {
  readonly windowMs: number;
  /** Verifications per second in each window, in order. */
  readonly windows: readonly number[];
  readonly p10: number;
  readonly median: number;
  readonly p90: number;
}

/** Verifies in windows of WINDOW_MS until `seconds` have passed (bounded in time; each window in count by the clock). */
function measure(seconds: number): Steadiness {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const messages = Array.from({ length: MESSAGES }, (_, i) =>
    Buffer.from(`host steadiness probe ${i} `.padEnd(400, '.')),
  );
  const signatures = messages.map((message) => sign(null, message, privateKey));
  const windows: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    let count = 0;
    let now = start;
    while (now - start < WINDOW_MS) {
      const i = count % MESSAGES;
      if (!verify(null, messages[i]!, publicKey, signatures[i]!))
        throw new Error('Ed25519 verify failed');
      count++;
      now = performance.now();
    }
    windows.push(Math.round((count * 1000) / (now - start)));
  }
  const sorted = [...windows].sort((a, b) => a - b);
  return {
    windowMs: WINDOW_MS,
    windows,
    p10: percentile(sorted, 0.1)!,
    median: Math.round(median(windows)),
    p90: percentile(sorted, 0.9)!,
  };
}

function main(argv: readonly string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        seconds: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(
      `bench:host: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`,
    );
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const raw = values.seconds ?? '8';
  const seconds = Number(raw);
  if (!/^\d+$/.test(raw) || seconds < 1 || seconds > 60) {
    process.stderr.write(`bench:host: --seconds must be an integer from 1 to 60\n${USAGE}`);
    return 2;
  }
  const result = measure(seconds);
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const hundreds = result.windows.map((rate) => Math.round(rate / 100)).join(' ');
  process.stdout.write(
    `Ed25519 verifies per second in ${result.windows.length} windows of ${WINDOW_MS} ms, one thread (in hundreds, in order):\n${hundreds}\n` +
      `p10 ${result.p10}  median ${result.median}  p90 ${result.p90}  (p90/p10 ${(result.p90 / result.p10).toFixed(2)})\n` +
      `node ${process.version}, ${process.platform}/${process.arch}\n`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));

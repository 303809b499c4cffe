// npm run fuzz:diff -- --seconds N [--seed S] [--only python,http-message-sig]: differential fuzzing of payconform's
// verifier and RFC 8941 reading against the interop matrix's implementations and `structured-headers`
// (scripts/fuzz-diff/; docs/vectors.md, "Differential fuzzing"). Exit 0 when every disagreement is a stated
// departure, 1 when a finding was printed (a candidate vector), 2 on a usage error.
import { runDifferentialFuzz } from './fuzz-diff/run.js';

function usage(message: string): never {
  console.error(
    `fuzz:diff: ${message}\nusage: npm run fuzz:diff -- --seconds N [--seed S] [--only ID,...]`,
  );
  process.exit(2);
}

function parseArgs(argv: readonly string[]): { seconds: number; seed?: number; only?: string[] } {
  const out: { seconds: number; seed?: number; only?: string[] } = { seconds: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === '--seconds' || flag === '--seed') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || (flag === '--seconds' && (n < 1 || n > 86_400)))
        usage(`${flag} must be a whole number${flag === '--seconds' ? ' from 1 to 86400' : ''}`);
      if (flag === '--seconds') out.seconds = n;
      else out.seed = n;
    } else if (flag === '--only') out.only = value.split(',');
    else usage(`unknown option ${flag}`);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const started = Date.now();
const report = await runDifferentialFuzz({ ...args, print: (line) => console.log(line) }).catch(
  (error: unknown) => usage(error instanceof Error ? error.message : String(error)),
);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`fuzz:diff: ${report.cases} cases in ${seconds} s (seed ${report.seed})`);
console.log(`answered: ${JSON.stringify(report.answered)}`);
console.log(
  `stated departures (disagreements explained by the one table): ${JSON.stringify(report.stated)}`,
);
console.log(
  report.findings.length === 0
    ? 'no unstated disagreement'
    : `${report.findings.length} finding(s): each printed above as a candidate vector`,
);
process.exitCode = report.findings.length === 0 ? 0 : 1;

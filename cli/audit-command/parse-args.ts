// The audit commands' shared step 1: parse the common options (--report, --only, --level, --fail-on, --allow-skips,
// --baseline, --attest, --verbose), refusing secrets given as arguments.
import { AUDIT_COMMON_OPTIONS, parseArgsOptions } from '../command-table.js';
import { AUDIT_LEVEL_DEFAULT } from '../command-defaults.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FileReadError, readRegularFile, textOf } from '../../net/file-read.js';
import { parseBaseline, type Baseline } from '../../conformance/report/baseline.js';
import { UsageError } from '../io.js';
import type { LevelFilter } from '../../conformance/run/engine.js';
import { parseLevelFilter, parseReportSpecs, type ReportSpec } from '../reports.js';
import type { RunGate } from '../../conformance/run/result.js';
import { parseFailOn, parseList } from './option-values.js';

export const SECRET_OPTION =
  /^--?(?:application[-_]?secret|app[-_]?secret|secret|private[-_]?key|key|seed|password)(?:=|$)/i;

/** The options every audit command takes: from the one option table (cli/command-table.ts), as --help shows them. */
const COMMON_OPTIONS: OptionsConfig = parseArgsOptions(AUDIT_COMMON_OPTIONS);

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The common options, parsed. */
export interface CommonAuditArgs {
  readonly reports: ReportSpec[];
  readonly only?: string[];
  readonly level: LevelFilter;
  /** Whether --level was given (an explicit selection accepts skips). */
  readonly levelGiven: boolean;
  readonly gate: RunGate;
  readonly verbose: boolean;
  readonly help: boolean;
  /** `--attest FILE`: where the signed attestation goes. */
  readonly attest?: string;
  /** `--baseline FILE` (read before the run: undefined when `--baseline-update` makes it) and `--baseline-update`. */
  readonly baseline?: {
    readonly file: string;
    readonly known?: Baseline;
    readonly update: boolean;
  };
}

export interface AuditArgsSpec {
  readonly usage: string;
  /** Completes "refusing --secret: …": where the command takes its secrets from instead. */
  readonly secretHint: string;
  /** The command's own options (the common ones are added). */
  readonly options: OptionsConfig;
}

/**
 * Refuses secret-looking options, parses the command's options and the common ones (strict, no positionals), and
 * checks the common values. Every problem is a UsageError; an unknown or malformed flag also shows the usage.
 */
export function parseAuditArgs(
  args: readonly string[],
  spec: AuditArgsSpec,
): { readonly values: OptionValues; readonly common: CommonAuditArgs } {
  const secretArg = args.find((a) => SECRET_OPTION.test(a));
  if (secretArg !== undefined)
    throw new UsageError(`refusing ${secretArg.split('=')[0]}: ${spec.secretHint}`);
  let values: OptionValues;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { ...spec.options, ...COMMON_OPTIONS },
      strict: true,
      allowPositionals: false,
    }) as { values: OptionValues });
  } catch (error) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}\n${spec.usage}`,
    );
  }
  const reports: ReportSpec[] = parseReportSpecs((values['report'] as string[] | undefined) ?? []);
  const level: LevelFilter = parseLevelFilter(
    (values['level'] as string | undefined) ?? AUDIT_LEVEL_DEFAULT,
  );
  const onlyText = values['only'];
  const only = typeof onlyText === 'string' ? parseList(onlyText) : undefined;
  if (only !== undefined && only.length === 0)
    throw new UsageError('--only needs at least one check id');
  const failOn = parseFailOn((values['fail-on'] as string[] | undefined) ?? []);
  const levelGiven = values['level'] !== undefined;
  const attest = typeof values['attest'] === 'string' ? values['attest'] : undefined;
  if (attest !== undefined && !reports.some((r) => r.format === 'json' && r.path !== '-'))
    throw new UsageError(
      '--attest needs --report json:FILE (the attestation names the digest of the report as written)',
    );
  const baseline = readBaselineOption(values);
  const gate: RunGate = {
    failOn,
    allowSkips: values['allow-skips'] === true || only !== undefined || levelGiven,
  };
  return {
    values,
    common: {
      reports,
      ...(only !== undefined ? { only } : {}),
      level,
      levelGiven,
      gate,
      verbose: values['verbose'] === true,
      help: values['help'] === true,
      ...(attest !== undefined ? { attest } : {}),
      ...(baseline !== undefined ? { baseline } : {}),
    },
  };
}

/** `--baseline FILE` read and checked before anything runs (a usage error names what is wrong). */
function readBaselineOption(values: OptionValues): CommonAuditArgs['baseline'] {
  const file = values['baseline'];
  const update = values['baseline-update'] === true;
  if (typeof file !== 'string') {
    if (update)
      throw new UsageError('--baseline-update needs --baseline FILE (the file it writes)');
    return undefined;
  }
  let text: string;
  try {
    text = textOf(readRegularFile(file, 'baseline'));
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (update && error.code === 'ENOENT') return { file, update };
    throw new UsageError(`cannot read --baseline "${file}": ${error.message}`);
  }
  try {
    return { file, known: parseBaseline(text), update };
  } catch (error) {
    throw new UsageError(`--baseline "${file}" ${(error as Error).message}`);
  }
}

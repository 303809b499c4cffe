// The command that re-runs one failed check with the same target, config and flags (secret-free by construction).
import { shellQuote } from '../../conformance/report/curl.js';

/** Options a re-run of one check drops: it selects that check itself and writes no reports or attestation. */
const RERUN_DROPS: ReadonlyMap<string, boolean> = new Map([
  ['--only', true],
  ['--report', true],
  // --attest needs --report json:FILE, which the re-run drops: kept, the printed command would be a usage error.
  ['--attest', true],
  ['--level', true],
  ['--fail-on', true],
  ['--allow-skips', false],
  ['--baseline-update', false],
  // --only names the one check; the explorer runs only when that is it (audit server).
  ['--no-explore', false],
  ['--verbose', false],
]);

/**
 * The command that runs one check again with the same target, config and flags: `payconform audit server --only ID
 * ...`. It signs afresh, so unlike a recorded signed request it still reproduces after the 300 s signature window.
 * Secrets are never arguments (refused above), so the command carries none; it needs the same environment.
 */
export function rerunCommandFor(
  command: string,
  args: readonly string[],
): (checkId: string) => string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.split('=')[0]! : arg;
    const takesValue = RERUN_DROPS.get(name);
    if (takesValue === undefined) {
      kept.push(arg);
      continue;
    }
    if (takesValue && !arg.includes('=')) i += 1;
  }
  return (checkId) =>
    ['payconform', ...command.split(' '), '--only', checkId, ...kept].map(shellWordFor).join(' ');
}

/** A shell word: bare when it is plainly safe, single-quoted otherwise. */
function shellWordFor(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : shellQuote(word);
}

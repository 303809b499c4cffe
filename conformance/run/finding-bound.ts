// A check's findings, bounded before they are graded: whatever a target or an adapter answers (an SDK result padded
// with 60,000 unknown members gave one observation each), a check keeps at most MAX_FINDINGS_PER_CHECK findings whole
// and counts the rest by kind, so memory and every report stay within stated limits (docs/security.md, "Bounded
// findings"). Nothing that decides the verdict is lost: violations and inconclusive findings are kept before the
// others, and what is dropped is summed up in one finding per kind (its outcome, requirement and level), so the check's
// outcome is the one it would have had with every finding kept.
import type { Finding, FindingOutcome } from './check.js';

/** The most findings of one check kept whole. */
export const MAX_FINDINGS_PER_CHECK = 200;

/** Kept first: what decides a verdict. */
const DECIDING: ReadonlySet<FindingOutcome> = new Set(['violation', 'inconclusive']);

/**
 * The findings to grade: all when within the bound; else `max` kept whole (in their order) and one summary per kind
 * of the rest (kinds are few: a check's outcomes × its requirements × levels).
 */
export function boundFindings(
  findings: readonly Finding[],
  max: number = MAX_FINDINGS_PER_CHECK,
): readonly Finding[] {
  if (findings.length <= max) return findings;
  const deciding = findings.filter((f) => DECIDING.has(f.outcome));
  const others = findings.filter((f) => !DECIDING.has(f.outcome));
  const kept = new Set([...deciding, ...others].slice(0, max));
  const dropped = findings.filter((f) => !kept.has(f));
  const summaries = [...kindsOf(dropped).values()].map(({ sample, count }): Finding => ({
    outcome: sample.outcome,
    message: `${count} more finding(s) like "${sample.message.slice(0, 120)}" not kept: a check keeps ${max} findings whole and counts the rest`,
    ...(sample.requirement !== undefined ? { requirement: sample.requirement } : {}),
    ...(sample.level !== undefined ? { level: sample.level } : {}),
  }));
  return [...findings.filter((f) => kept.has(f)), ...summaries];
}

/** Findings by kind (outcome, requirement, level): how many, and the first as the kind's example. */
function kindsOf(findings: readonly Finding[]): Map<string, { sample: Finding; count: number }> {
  const kinds = new Map<string, { sample: Finding; count: number }>();
  for (const f of findings) {
    const key = `${f.outcome}\u0000${f.requirement ?? ''}\u0000${f.level ?? ''}`;
    const kind = kinds.get(key);
    if (kind === undefined) kinds.set(key, { sample: f, count: 1 });
    else kind.count++;
  }
  return kinds;
}

// Which cases a run keeps: a selector names a vector file (its path as index.json lists it), an op, or a case id;
// several selectors keep the cases any of them names. run-vectors.py keeps the same cases (its `select`).
import type { LoadedCase } from './load.js';

export interface Selection {
  readonly cases: readonly LoadedCase[];
  /** The selectors that name no file, op or case id of the set (the caller reports them). */
  readonly unknown: readonly string[];
}

/** The cases `selectors` name, in the set's order; every case when there is no selector. */
export function selectCases(cases: readonly LoadedCase[], selectors: readonly string[]): Selection {
  if (selectors.length === 0) return { cases, unknown: [] };
  const known = new Set(cases.flatMap((c) => [c.file, c.vector.op, c.vector.id]));
  const wanted = new Set(selectors);
  return {
    cases: cases.filter(
      (c) => wanted.has(c.file) || wanted.has(c.vector.op) || wanted.has(c.vector.id),
    ),
    unknown: selectors.filter((s) => !known.has(s)),
  };
}

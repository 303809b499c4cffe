// The interop matrix's shape (cases x implementations, one cell each), as docs/interop.json holds it.
import type { CaseReport } from '../harness/run.js';
import type { DeviationId } from './deviations.js';

export type CellStatus = CaseReport['status'];
export interface Cell {
  readonly status: CellStatus;
  /** Why a non-pass cell is what it is; `unexplained` when neither the adapter nor interop.json says. */
  readonly deviation?: DeviationId | 'unexplained';
}

export interface MatrixImplementation {
  readonly id: string;
  readonly title: string;
  readonly adapter: string;
  readonly version?: string;
  readonly configuration?: string;
  readonly compareCodes: boolean;
  readonly protocol: number;
  readonly counts: Readonly<Record<CellStatus, number>>;
}

export interface MatrixCase {
  readonly id: string;
  readonly file: string;
  readonly op: string;
  readonly result: string;
  /** Line of the case's `"id"` in its file (for links). */
  readonly line: number;
}

export interface Matrix {
  /** For each case some implementation fails: whether the vector or the library is wrong, and by which rule. */
  readonly triage: Readonly<Record<string, string>>;
  readonly implementations: readonly MatrixImplementation[];
  readonly cases: readonly MatrixCase[];
  /** cells[implementationId][caseId] */
  readonly cells: Readonly<Record<string, Readonly<Record<string, Cell>>>>;
}

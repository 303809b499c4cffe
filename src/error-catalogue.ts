// The one record shape of payconform's catalogues of stable failure codes (request verification, webhook
// verification): each code maps to what it means, and, for request verification, the spec step that gives it.

/** One entry of an error-code catalogue: what the code means, and its title or spec step. */
export interface ErrorCodeEntry {
  /** What the code means, in one or two sentences (shown in docs and reports). */
  readonly description: string;
  /** A short name for tables (webhook codes). */
  readonly title?: string;
  /** The spec step that reports it first ("Server verification order", 1-12). */
  readonly step?: number;
  /** Every step that can report it. */
  readonly steps?: readonly number[];
}

/** A catalogue: code → entry. The code union of a catalogue is `keyof typeof catalogue`. */
export type ErrorCatalogue = Readonly<Record<string, ErrorCodeEntry>>;

// How a payload case is written: a row of a kind's table (CaseRow), and Cases, which turns rows into the cases of a
// vector file (id from the kind and slug, the strict schema for a strict case, expected errors as pointer/keyword).
import { payloadSchemaId, type PayloadKind } from '../../src/schemas/index.js';
import { edit, REMOVE, type Json } from './fixtures.js';

export interface ExpectedError {
  readonly pointer: string;
  readonly keyword: string;
}

export interface PayloadVectorCase {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  /** Present when the case targets another schema than the file's (the strict variant). */
  readonly schema?: string;
  readonly result: 'valid' | 'invalid';
  readonly payload: unknown;
  readonly expectedErrors?: readonly ExpectedError[];
}

/** Options a case may carry: the strict schema variant, a source other than the kind's section. */
export interface CaseOptions {
  readonly strict?: boolean;
  readonly source?: string;
}

/**
 * One case as a row of a kind's table, named by what it does: `valid` / `invalid` (the payload as given, with the
 * errors expected), `wrong` (the base with `pointer` set to `value`: `keyword` there) or `missing` (the base without
 * `pointer`: `required` there). The property holding the slug says which.
 */
export type CaseRow = CaseOptions &
  (
    | { readonly valid: string; readonly description: string; readonly payload: Json }
    | {
        readonly invalid: string;
        readonly description: string;
        readonly payload: Json;
        readonly errors: readonly (readonly [string, string])[];
      }
    | {
        readonly wrong: string;
        readonly description: string;
        readonly base: Json;
        readonly pointer: string;
        readonly value: Json;
        readonly keyword: string;
      }
    | {
        readonly missing: string;
        readonly description: string;
        readonly base: Json;
        readonly pointer: string;
      }
  );

export class Cases {
  readonly list: PayloadVectorCase[] = [];
  constructor(
    private readonly kind: PayloadKind,
    private readonly section: string,
  ) {}

  valid(
    slug: string,
    description: string,
    payload: Json,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.push({ slug: `valid-${slug}`, description, payload, result: 'valid', ...options });
  }

  invalid(
    slug: string,
    description: string,
    payload: Json,
    expectedErrors: readonly (readonly [string, string])[],
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.push({
      slug: `invalid-${slug}`,
      description,
      payload,
      result: 'invalid',
      errors: expectedErrors,
      ...options,
    });
  }

  /** Sets `pointer` to `value`: invalid with the given keyword at that pointer. */
  wrong(
    slug: string,
    description: string,
    base: Json,
    pointer: string,
    value: Json,
    keyword: string,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.invalid(slug, description, edit(base, pointer, value), [[pointer, keyword]], options);
  }

  /** Removes `pointer`: invalid, reported as `required` at the removed property. */
  missing(
    slug: string,
    description: string,
    base: Json,
    pointer: string,
    options: { strict?: boolean; source?: string } = {},
  ): void {
    this.invalid(slug, description, edit(base, pointer, REMOVE), [[pointer, 'required']], options);
  }

  /** Adds each row of a kind's table, in order. */
  addAll(rows: readonly CaseRow[]): this {
    for (const row of rows) this.add(row);
    return this;
  }

  add(row: CaseRow): void {
    const options: CaseOptions = {
      ...(row.strict !== undefined ? { strict: row.strict } : {}),
      ...(row.source !== undefined ? { source: row.source } : {}),
    };
    if ('valid' in row) this.valid(row.valid, row.description, row.payload, options);
    else if ('invalid' in row)
      this.invalid(row.invalid, row.description, row.payload, row.errors, options);
    else if ('wrong' in row)
      this.wrong(
        row.wrong,
        row.description,
        row.base,
        row.pointer,
        row.value,
        row.keyword,
        options,
      );
    else this.missing(row.missing, row.description, row.base, row.pointer, options);
  }

  private push(c: {
    slug: string;
    description: string;
    payload: Json;
    result: 'valid' | 'invalid';
    errors?: readonly (readonly [string, string])[];
    strict?: boolean;
    source?: string;
  }): void {
    const id = `${this.kind}-${c.strict === true ? 'strict-' : ''}${c.slug}`;
    this.list.push({
      id,
      description: c.description,
      source:
        c.source ??
        (c.strict === true ? `payconform strict variant; ${this.section}` : this.section),
      ...(c.strict === true ? { schema: payloadSchemaId(this.kind, { strict: true }) } : {}),
      result: c.result,
      payload: c.payload,
      ...(c.errors
        ? { expectedErrors: c.errors.map(([pointer, keyword]) => ({ pointer, keyword })) }
        : {}),
    });
  }
}

// The HTTP working group's structured-field tests (vendored, pinned: test/vectors/structured-field-tests/README.md)
// run through payconform's RFC 8941 glue, as structured-headers runs them against itself.
import { serializeDictionary, serializeItem, serializeList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import {
  parseSfDictionary,
  parseSfItem,
  parseSfList,
  serializeSf,
  type Dictionary,
  type Item,
  type List,
  type SfKind,
  type SfResult,
} from '../src/structured-fields/structured-fields.js';
import {
  containsDecimal,
  containsRfc9651Type,
  fromCorpusJson,
  readCorpus,
  toCorpusJson,
  type CorpusCase,
} from './fixtures/structured-field-corpus.js';

/**
 * RFC 9651 (Structured Field Values, 2024) added Date and Display String; this glue is RFC 8941 only and rejects
 * both by design (src/structured-fields/structured-fields.ts: the profile's fields are RFC 8941 fields). These files
 * run with the opposite expectation: every case must fail to parse.
 */
const RFC_9651_ONLY_FILES = ['date.json', 'display-string.json'];

/**
 * The one known exception, found by running the corpus (all else passes). RFC 8941 §3.3.2: `1.0` is a Decimal,
 * but structured-headers returns Integers and Decimals alike as JavaScript numbers, which cannot tell 1.0 from 1
 * (the glue's isSfInteger follows). Parsing is right (the value is one); serialising the corpus's `expected` writes
 * the Integer `1` where the canonical form is the Decimal `1.0`. A limit of the library's data model, not of the
 * glue; the profile never serialises a Decimal. Each case it covers must still fail, so a change is noticed.
 */
function isIntegralDecimalCase(canonical: string): boolean {
  return /(?:^|[=;( ])-?\d+\.0+(?:$|[;), ])/.test(canonical);
}
/** `canonical` with each integral Decimal written as an Integer (`q=1.0` → `q=1`). */
function withoutIntegralDecimals(canonical: string): string {
  return canonical.replace(/(\d)\.0+(?=$|[;), ])/g, '$1');
}
/** How many serialisation cases of the pinned corpus fall under that exception. */
const INTEGRAL_DECIMAL_CASES = 41;

/** Parses a field value in RFC 8941 mode: duplicate Dictionary keys are kept last-wins (§4.2.2), not refused. */
function parseRfc8941(kind: SfKind, input: string): SfResult<unknown> {
  if (kind === 'item') return parseSfItem(input);
  if (kind === 'list') return parseSfList(input);
  return parseSfDictionary(input, { allowDuplicateKeys: true });
}

/** RFC 9110 §5.3: several field lines combine into one value joined by ", ". */
function fieldValue(c: CorpusCase): string {
  return (c.raw ?? []).join(', ');
}

/** What went wrong parsing one case, or undefined (README: must_fail, can_fail, expected). */
function parseProblem(c: CorpusCase): string | undefined {
  const parsed = parseRfc8941(c.header_type, fieldValue(c));
  if (!parsed.ok) {
    return c.must_fail || c.can_fail ? undefined : `refused: ${parsed.code} ${parsed.message}`;
  }
  if (c.must_fail) return 'parsed a value that must fail';
  const got = toCorpusJson(c.header_type, parsed.value as never);
  return JSON.stringify(got) === JSON.stringify(c.expected)
    ? undefined
    : `parsed ${JSON.stringify(got)}, expected ${JSON.stringify(c.expected)}`;
}

/** What went wrong serialising `expected`: it must give `canonical` (or `raw`), or fail where `must_fail`. */
function serializeProblem(c: CorpusCase): string | undefined {
  let serialized: ReturnType<typeof serializeSf>;
  try {
    serialized = serializeSf(c.header_type, fromCorpusJson(c.header_type, c.expected!));
  } catch (error) {
    // structured-headers cannot even hold the value (a Token's constructor checks its characters).
    serialized = { ok: false, message: (error as Error).message };
  }
  if (c.must_fail)
    return serialized.ok ? `serialised to ${JSON.stringify(serialized.value)}` : undefined;
  const want = canonicalText(c);
  if (!serialized.ok) return `refused: ${serialized.message}`;
  return serialized.value === want
    ? undefined
    : `serialised ${JSON.stringify(serialized.value)}, expected ${JSON.stringify(want)}`;
}

/** The text `expected` must serialise to: `canonical` where given, else `raw`. */
function canonicalText(c: CorpusCase): string {
  return (c.canonical ?? c.raw ?? []).join(', ');
}

const integralDecimalSeen = new Set<string>();

/** Asserts a serialisation case passes, or, under the known exception, still fails. */
function expectSerialisation(key: string, c: CorpusCase): void {
  const problem = serializeProblem(c);
  if (!c.must_fail && isIntegralDecimalCase(canonicalText(c))) {
    integralDecimalSeen.add(key);
    expect(problem, `known exception passes now: ${key}`).toBeDefined();
  } else expect(problem, key).toBeUndefined();
}

const parseFiles = readCorpus().filter(({ file }) => !RFC_9651_ONLY_FILES.includes(file));
const rfc9651Files = readCorpus().filter(({ file }) => RFC_9651_ONLY_FILES.includes(file));
const serialisationFiles = readCorpus('serialisation-tests');

describe('RFC 8941 §4.2 parsing: the structured-field tests through the glue', () => {
  describe.each(parseFiles)('$file', ({ file, cases }) => {
    it.each(cases.map((c) => [c.name, c.header_type, c] as const))('%s (%s)', (name, _kind, c) => {
      expect(parseProblem(c), `${file}: ${name}`).toBeUndefined();
    });
  });
});

describe('RFC 8941 §4.1 serialisation: each valid case serialises to its canonical form', () => {
  // The glue refuses to serialise Decimals (structured-headers' Decimal serialiser is not RFC 8941 §4.1.5
  // conformant: see the test below); those cases are checked to be refused instead.
  describe.each(parseFiles)('$file', ({ file, cases }) => {
    const valid = cases.filter((c) => !c.must_fail);
    it.skipIf(valid.length === 0).each(valid.map((c) => [c.name, c.header_type, c] as const))(
      '%s (%s)',
      (name, _kind, c) => {
        if (containsDecimal(c.expected)) {
          const out = serializeSf(c.header_type, fromCorpusJson(c.header_type, c.expected!));
          expect(out).toEqual({ ok: false, message: 'Decimal serialisation is not supported' });
        } else expectSerialisation(`${file}: ${name}`, c);
      },
    );
  });

  describe.each(serialisationFiles)('$file', ({ file, cases }) => {
    it.each(cases.map((c) => [c.name, c.header_type, c] as const))('%s (%s)', (name, _kind, c) => {
      if (containsDecimal(c.expected) && !c.must_fail) {
        const out = serializeSf(c.header_type, fromCorpusJson(c.header_type, c.expected!));
        expect(out.ok).toBe(false);
      } else expectSerialisation(`${file}: ${name}`, c);
    });
  });
});

describe('the known exception covers exactly the pinned number of cases', () => {
  // Runs after the serialisation tests above (vitest runs a file's tests in order).
  it(`${INTEGRAL_DECIMAL_CASES} cases write an integral Decimal (1.0)`, () => {
    expect([...integralDecimalSeen].length, [...integralDecimalSeen].join('\n')).toBe(
      INTEGRAL_DECIMAL_CASES,
    );
  });
});

describe('RFC 9651-only types (Date, Display String): the RFC 8941 glue refuses every case', () => {
  describe.each(rfc9651Files)('$file', ({ cases }) => {
    it.each(cases.map((c) => [c.name, c.header_type, c] as const))('%s (%s)', (_name, _kind, c) => {
      const parsed = parseRfc8941(c.header_type, fieldValue(c));
      expect(parsed.ok).toBe(false);
      // A value RFC 9651 accepts is refused for its type, not as a syntax error.
      if (!parsed.ok && !c.must_fail && containsRfc9651Type(c.expected))
        expect(parsed.code).toBe('SF_TYPE_UNSUPPORTED');
    });
  });
});

describe("the profile's stricter default: a repeated Dictionary key is refused", () => {
  it('dictionary.json "duplicate key dictionary" gives SF_DUPLICATE_KEY without allowDuplicateKeys', () => {
    const c = readCorpus()
      .find(({ file }) => file === 'dictionary.json')!
      .cases.find((x) => x.name === 'duplicate key dictionary')!;
    expect(parseRfc8941('dictionary', fieldValue(c)).ok).toBe(true);
    const strict = parseSfDictionary(fieldValue(c));
    expect(strict.ok ? 'ok' : strict.code).toBe('SF_DUPLICATE_KEY');
  });
});

describe('why the glue refuses Decimals: structured-headers rounds them wrongly (RFC 8941 §4.1.5)', () => {
  it('its own serialiser misses exactly these canonical forms (half-even rounding, rounding up)', () => {
    const wrong: string[] = [];
    for (const { file, cases } of [...parseFiles, ...serialisationFiles])
      for (const c of cases) {
        const want = canonicalText(c);
        if (c.must_fail || !containsDecimal(c.expected)) continue;
        const value = fromCorpusJson(c.header_type, c.expected!);
        let out: string;
        try {
          out =
            c.header_type === 'item'
              ? serializeItem(value as Item)
              : c.header_type === 'list'
                ? serializeList(value as List)
                : serializeDictionary(value as Dictionary);
        } catch {
          out = '(threw)';
        }
        // The known exception above (1.0 written as 1) is the data model's limit, not a rounding error.
        if (out !== want && out !== withoutIntegralDecimals(want))
          wrong.push(`${file}: ${c.name}: ${out} (canonical ${want})`);
      }
    // If this changes, the library changed: the glue's refusal to serialise Decimals can be reconsidered.
    expect(wrong).toEqual([
      'serialisation-tests/number.json: round positive even decimal - serialize: 0.003 (canonical 0.002)',
      'serialisation-tests/number.json: round negative even decimal - serialize: -0.003 (canonical -0.002)',
      'serialisation-tests/number.json: decimal round up to integer part - serialize: 9.999 (canonical 10.0)',
    ]);
  });
});

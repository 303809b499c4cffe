// docs/verdicts.md, "Readings the spec does not state": every row quotes the spec's own words for what it reads, and
// every quote is found in the spec (a table cell's `\|` is the spec's `|`). The rows name the field or timing read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli.js';
import { describeWithSpec, specText } from './fixtures/spec.js';

const doc = readFileSync(join(REPO_ROOT, 'docs', 'verdicts.md'), 'utf8');

/** The rows of the section's table: [reading, where, the spec's words, what is done]. */
function readingRows(): string[][] {
  const start = doc.indexOf('**Readings the spec does not state.**');
  const table = doc.slice(start).split('\n\n')[1] ?? '';
  return table
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
}

describeWithSpec('docs/verdicts.md, "Readings the spec does not state"', () => {
  it('names eventTimeUtc, delivery order and time, lifecycle durations, the retry interval and what an SDK passes on', () => {
    const readings = readingRows().map((r) => r[0]!);
    for (const word of [
      'eventTimeUtc',
      'order',
      'how soon a webhook',
      'IN_PROGRESS',
      'retry interval',
      'SDK',
    ])
      expect(
        readings.some((r) => r.includes(word)),
        word,
      ).toBe(true);
  });
  it('quotes, in each row, words the spec states', () => {
    const spec = specText().replace(/\s+/g, ' ');
    const rows = readingRows();
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) {
      const quotes = [...row[2]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      expect(quotes.length, row[0]).toBeGreaterThan(0);
      for (const q of quotes) {
        // [...] marks words left out, as in the other tables of the page.
        for (const part of q.replace(/\s+/g, ' ').split(/\s*\[\.\.\.\]\s*/))
          expect(spec.includes(part.replace(/[.]$/, '')), `${row[0]}: "${part}"`).toBe(true);
      }
    }
  });
});

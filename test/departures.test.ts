// The one table of the profile's departures from the RFCs (src/profile/departures.ts) and its users agree: the
// public `profileDeviations`, the interop matrix's explanations and the adapters' `cannotExpress` ids, the vectors'
// comments, the implementer's guide (vectors/README.md) and docs/profile.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILE_DEPARTURES, type DepartureId } from '../src/profile/departures.js';
import { profileDeviations } from '../src/profile/service-profile.js';
import { DEVIATIONS } from '../vectors/adapters/deviations.js';
import { REPO_ROOT } from './fixtures/cli.js';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');
const ids = Object.keys(PROFILE_DEPARTURES) as DepartureId[];

/** docs/profile.md's table between its markers, one row per departure, as the table says it. */
function renderDepartureRows(): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '| id | kind | RFC | this profile | why |',
    '|---|---|---|---|---|',
    ...ids.map((id) => {
      const d = PROFILE_DEPARTURES[id];
      return `| \`${id}\` | ${d.kind} | ${cell(`${d.section}: ${d.rfcRule}`)} | ${cell(d.profileRule)} | ${cell(d.why)} |`;
    }),
  ].join('\n');
}

function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`markers ${start} / ${end} not found`);
  return text.slice(from + start.length, to).trim();
}

describe('the departures table is one table, and its users read it', () => {
  it('profileDeviations are exactly its profile entries, with the same ids and rules', () => {
    const profileIds = ids.filter((id) => PROFILE_DEPARTURES[id].kind === 'profile');
    expect(profileDeviations.map((d) => d.id)).toEqual(profileIds);
    for (const d of profileDeviations) {
      expect(d.title).toBe(PROFILE_DEPARTURES[d.id].title);
      expect(d.profileRule).toBe(PROFILE_DEPARTURES[d.id].profileRule);
    }
  });

  it('the interop matrix explains cells with the same entries, plus library gaps only', () => {
    for (const id of ids) expect(DEVIATIONS[id]).toBe(PROFILE_DEPARTURES[id]);
    const extra = Object.keys(DEVIATIONS).filter((id) => !ids.includes(id as DepartureId));
    for (const id of extra) expect(DEVIATIONS[id as keyof typeof DEVIATIONS].kind).toBe('library');
  });

  it('every id the interop configuration and the adapters name is in the table', () => {
    const config = JSON.parse(read('vectors/adapters/interop.json')) as {
      implementations: Array<{
        explained: Record<string, string>;
        unsupportedOps?: Record<string, string>;
      }>;
    };
    const named = config.implementations.flatMap((i) => [
      ...Object.values(i.explained),
      ...Object.values(i.unsupportedOps ?? {}),
    ]);
    const adapters = readdirSync(join(REPO_ROOT, 'vectors/adapters'), { recursive: true })
      .map(String)
      .filter((f) => /\.(ts|py)$/.test(f))
      .map((f) => read(join('vectors/adapters', f)));
    for (const source of adapters)
      for (const m of source.matchAll(/CannotExpress\(\s*'([^']+)'/g)) named.push(m[1]!);
    expect(named.length).toBeGreaterThan(10);
    for (const id of named) expect(Object.keys(DEVIATIONS), id).toContain(id);
  });

  it("the implementer's guide has a section for every entry, and docs/profile.md renders the table", () => {
    const guide = read('vectors/README.md');
    for (const id of Object.keys(DEVIATIONS)) expect(guide, id).toContain(`<a id="dev-${id}"></a>`);
    const profileDoc = read('docs/profile.md');
    expect(between(profileDoc, '<!-- departures:start -->', '<!-- departures:end -->')).toBe(
      renderDepartureRows(),
    );
  });

  it('every "Profile rule" a vector comment names is an entry of the table', () => {
    const cases = JSON.parse(read('vectors/request-signing.json')).cases as Array<{
      id: string;
      comment?: string;
    }>;
    const cited = cases.flatMap((c) =>
      [
        ...(c.comment ?? '').matchAll(
          /[Pp]rofile rules? ([a-z-]+) \([^)]*\)(?: and ([a-z-]+) \()?/g,
        ),
      ].flatMap((m) => [m[1]!, ...(m[2] ? [m[2]] : [])].map((id) => [c.id, id] as const)),
    );
    expect(cited.length).toBeGreaterThanOrEqual(10);
    for (const [caseId, id] of cited) expect(ids, caseId).toContain(id);
  });
});

// The requirements catalogue: well-formed, unique ids, valid levels and parties, every "not shown" gap present.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeWithSpec, findSpec, SPEC_FILE_VARIABLE, specText } from './fixtures/spec.js';
import {
  createCatalogue,
  loadCatalogue,
  REQUIREMENT_ID_PATTERN,
  requirementsForRole,
} from '../conformance/requirements.js';

const catalogue = loadCatalogue();

describe('conformance/requirements.json', () => {
  it('has unique, well-formed ids grouped by a known area prefix', () => {
    const ids = catalogue.requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const prefixes = new Set([
      'APP',
      'SIG',
      'DIGEST',
      'LIMIT',
      'PAYOUT',
      'COP',
      'REFUND',
      'PAYMENT',
      'RETRIEVAL',
      'KEY',
      'WEBHOOK',
      'ERROR',
      'VERSION',
    ]);
    for (const id of ids) {
      expect(id).toMatch(REQUIREMENT_ID_PATTERN);
      expect(prefixes.has(id.split('-')[0]!), id).toBe(true);
    }
    expect(ids.length).toBeGreaterThanOrEqual(80);
  });

  it('gives every entry a section, a valid level and party, and one-sentence text', () => {
    for (const r of catalogue.requirements) {
      expect(['MUST', 'SHOULD', 'MAY'], r.id).toContain(r.level);
      expect(typeof r.shown, r.id).toBe('boolean');
      expect(r.appliesTo.length, r.id).toBeGreaterThan(0);
      for (const p of r.appliesTo)
        expect(['server', 'client', 'receiver', 'sender'], r.id).toContain(p);
      expect(r.section.length, r.id).toBeGreaterThan(2);
      expect(r.text.length, r.id).toBeGreaterThan(10);
      if (r.source !== undefined) expect(r.source).toBe('payconform');
    }
  });

  it('covers each of the 12 server verification steps and each step of the signing scheme', () => {
    const sections = catalogue.requirements.map((r) => r.section).join('\n');
    for (let step = 1; step <= 12; step++)
      expect(sections).toContain(`Server verification order, step ${step}`);
    for (const step of ['Step 1', 'Step 2', 'Step 3', 'Step 4', 'Step 5', 'Bodyless requests'])
      expect(sections).toContain(step);
  });

  it('covers every Limits row and the profile choices are marked', () => {
    const limits = catalogue.requirements.filter((r) => r.section === 'Limits');
    expect(limits.length).toBeGreaterThanOrEqual(9);
    expect(catalogue.byId.get('SIG-PROFILE-FUTURE-CREATED')?.source).toBe('payconform');
  });

  it('gives each audit role something to cover', () => {
    for (const role of ['server', 'client', 'receiver'] as const)
      expect(requirementsForRole(catalogue, role).length).toBeGreaterThan(5);
  });

  it('rejects a catalogue with a duplicate or malformed id', () => {
    const entry = {
      id: 'SIG-X',
      section: 's',
      level: 'MUST',
      shown: true,
      appliesTo: ['server'],
      text: 'text text text',
    };
    expect(() => createCatalogue({ catalogueVersion: '1', requirements: [entry, entry] })).toThrow(
      /duplicate/,
    );
    expect(() =>
      createCatalogue({ catalogueVersion: '1', requirements: [{ ...entry, id: 'sig-x' }] }),
    ).toThrow(/malformed/);
  });
});

describeWithSpec('conformance/requirements.json against the spec text', () => {
  it('records one entry per "not shown" statement of the spec (at least as many as the spec has)', () => {
    const gaps = specText().match(/not shown/g)?.length ?? 0;
    const notShown = catalogue.requirements.filter((r) => !r.shown);
    expect(notShown.length).toBeGreaterThanOrEqual(gaps);
    for (const r of notShown) expect(r.source).toBeUndefined();
  });

  it('names the SHA-256 of the spec its quotes were checked against (a changed spec means: check them again)', () => {
    const sha256 = createHash('sha256').update(specText()).digest('hex');
    expect(
      catalogue.specSha256,
      'the spec changed: re-check every quote, then record its new SHA-256',
    ).toBe(sha256);
  });
});

describe('where the spec is looked for (test/fixtures/spec.ts)', () => {
  const root = mkdtempSync(join(tmpdir(), 'payconform-spec-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const clone = join(root, 'a', 'b', 'clone');
  mkdirSync(clone, { recursive: true });

  it('finds nothing for a clone with nothing beside it, and says what to set', () => {
    const found = findSpec({}, clone);
    expect(found).toEqual({ missing: expect.stringContaining(SPEC_FILE_VARIABLE) });
  });

  it('finds shared/spec beside the repository or beside a folder above it', () => {
    mkdirSync(join(root, 'a', 'shared', 'spec'), { recursive: true });
    writeFileSync(join(root, 'a', 'shared', 'spec', 'payments-service.md'), 'spec text');
    expect(findSpec({}, clone)).toMatchObject({
      path: join(root, 'a', 'shared', 'spec', 'payments-service.md'),
      text: 'spec text',
      sha256: createHash('sha256').update('spec text').digest('hex'),
    });
  });

  it('prefers the file the environment names, and reports one that does not exist', () => {
    const named = join(root, 'named.md');
    writeFileSync(named, 'named text');
    expect(findSpec({ [SPEC_FILE_VARIABLE]: named }, clone)).toMatchObject({ text: 'named text' });
    expect(findSpec({ [SPEC_FILE_VARIABLE]: join(root, 'absent.md') }, clone)).toEqual({
      missing: expect.stringContaining('absent.md does not exist'),
    });
  });
});

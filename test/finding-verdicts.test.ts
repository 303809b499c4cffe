// What the spec requires of a server, beside each finding (src/profile/finding-verdicts.ts) and each drawn forgery
// form (conformance/checks/server/forgery-kinds*.ts): every code and case classified, every "must refuse" naming a
// server MUST of the catalogue whose quoted spec text holds the words it cites, every "either answer" saying why.
import { describe, expect, it } from 'vitest';
import { formVerdict } from '../conformance/checks/server/forgery-form.js';
import { forgeryForms } from '../conformance/checks/server/forgery-kinds.js';
import { loadCatalogue } from '../conformance/requirements.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { loadTestKeys } from './fixtures/keys.js';
import { findingVerdicts } from '../src/profile/finding-verdicts.js';
import { verifyErrorCodes } from '../src/profile/verify-error-codes.js';

const catalogue = loadCatalogue();
const verdicts = Object.entries(findingVerdicts);

describe('every finding is classified', () => {
  it('every verification code has a line (a new detail or code does not compile without one)', () => {
    const keys = new Set(Object.keys(findingVerdicts));
    expect(Object.keys(verifyErrorCodes).filter((code) => !keys.has(code))).toEqual([]);
  });

  it.each(verdicts.filter(([, v]) => v.verdict === 'must-refuse'))(
    '%s: must refuse, on a server MUST whose quote holds the words cited',
    (_case, v) => {
      if (v.verdict !== 'must-refuse') throw new Error('filtered');
      const r = catalogue.byId.get(v.requirement);
      expect(r, v.requirement).toBeDefined();
      expect(r!.level).toBe('MUST');
      expect(r!.shown).toBe(true);
      expect(r!.source).toBeUndefined();
      expect(r!.appliesTo).toContain('server');
      expect(v.words.length).toBeGreaterThan(10);
      expect(
        (r!.quote ?? []).some((q) => q.includes(v.words)),
        `"${v.words}" in ${v.requirement}'s quote`,
      ).toBe(true);
    },
  );

  it.each(verdicts.filter(([, v]) => v.verdict === 'either'))(
    '%s: either answer, with a reason',
    (_case, v) => {
      if (v.verdict !== 'either') throw new Error('filtered');
      expect(['rfc8941', 'not-shown', 'strictness']).toContain(v.why);
      expect(v.reason.length).toBeGreaterThan(20);
    },
  );
});

describe('every drawn form is classified', () => {
  it.each(forgeryForms.map((f) => [f.name, f] as const))('%s', (_name, form) => {
    const v = formVerdict(form);
    expect(['must-refuse', 'either', 'must-accept']).toContain(v.verdict);
    if (typeof form.finds === 'string') expect(v).toBe(findingVerdicts[form.finds]);
  });

  it('the two false failures servers built by others met are either answer: created written twice, and as a Decimal', () => {
    for (const name of ['parameter-repeated', 'created-decimal']) {
      const form = forgeryForms.find((f) => f.name === name)!;
      expect(formVerdict(form), name).toMatchObject({ verdict: 'either', why: 'rfc8941' });
    }
  });
});

describe('a form is what it says for every body it is drawn on', () => {
  const keys = loadTestKeys();
  const credentials = {
    applicationId: 'app',
    applicationSecret: 'test-only-secret',
    keyId: 'k',
    privateKey: keys.clientEd25519.privateKey,
  };
  const requestWith = (text: string) => {
    const body = Buffer.from(text);
    const headers = [
      ['content-type', 'application/json'],
      ['content-length', String(body.length)],
    ] as const;
    return { method: 'POST', url: 'http://127.0.0.1:1/api/payouts', headers, body };
  };
  /** A JSON body whose sha-512 in base64 holds neither "+" nor "/" (about one in fifteen; bounded search). */
  const bodyWithoutBase64OnlyCharacters = (): string => {
    for (let n = 0; n < 2000; n += 1) {
      const text = JSON.stringify({ amount: String(n) });
      const digest = computeContentDigest(Buffer.from(text), [serviceProfile.digestAlgorithm]);
      if (!/[+/]/.test(digest)) return text;
    }
    throw new Error('no such body among 2000');
  };

  it('digest-base64url holds "-" or "_" even where the body\'s base64 digest has no "+" or "/" (else it is only unpadded, which the spec leaves open)', () => {
    const form = forgeryForms.find((f) => f.name === 'digest-base64url')!;
    const request = requestWith(bodyWithoutBase64OnlyCharacters());
    const built = form.build({ request, credentials, now: 1_767_225_600, size: 0 });
    const field = (name: string) => built.headers.find(([n]) => n.toLowerCase() === name)?.[1];
    expect(field('content-digest')).toMatch(/^sha-512=:[A-Za-z0-9_-]*[-_][A-Za-z0-9_-]*:$/);
    expect(field('content-length')).toBe(String(built.body.length));
    expect(JSON.parse(Buffer.from(built.body).toString())).toEqual(
      JSON.parse(Buffer.from(request.body).toString()),
    );
  });
});

// The explorer's one replay-token grammar (conformance/explore/replay-token.ts), read and written for both roles, and
// the guard that keeps it one: no second sequence runner and no second token grammar in shipped code.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatReplayToken,
  parseReplayToken,
  type ReplayToken,
} from '../conformance/explore/replay-token.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('one replay-token grammar for both roles', () => {
  it('reads an SDK token (SEED~PATH), a quick server token and a patient one', () => {
    expect(parseReplayToken('42~3:0:1')).toEqual({
      ok: true,
      token: { seed: 42, path: '3:0:1', pace: 'quick' },
    });
    expect(parseReplayToken('12~0:3:1~AACr:K')).toEqual({
      ok: true,
      token: { seed: 12, path: '0:3:1', replayPath: 'AACr:K', pace: 'quick' },
    });
    expect(parseReplayToken('12~0:3~~patient')).toEqual({
      ok: true,
      token: { seed: 12, path: '0:3', replayPath: '', pace: 'patient' },
    });
  });

  it('refuses what is not a token with a reason, never a throw', () => {
    for (const bad of [
      '',
      'nonsense',
      '12',
      '-1~0',
      '2147483648~0',
      '12~a:b',
      '12~0~AA~slow',
      '12~0~A A',
      '1~2~3~patient~5',
      `1~${'0:'.repeat(3000)}0`,
    ]) {
      const parsed = parseReplayToken(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(/^not a replay token: .*expected SEED~PATH/);
    }
  });

  it('reads back every token it writes (fast-check)', () => {
    const token: fc.Arbitrary<ReplayToken> = fc
      .record({
        seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        path: fc.array(fc.nat(99), { minLength: 1, maxLength: 6 }).map((p) => p.join(':')),
        replayPath: fc.option(fc.stringMatching(/^[A-Za-z0-9+/=_:-]{0,12}$/), { nil: undefined }),
        pace: fc.constantFrom('quick' as const, 'patient' as const),
      })
      .map((t) =>
        // A patient lane's token always has a replay path (its role draws model commands).
        t.pace === 'patient' && t.replayPath === undefined ? { ...t, replayPath: '' } : t,
      )
      .map(({ replayPath, ...t }) => (replayPath === undefined ? t : { ...t, replayPath }));
    fc.assert(
      fc.property(token, (t) => {
        expect(parseReplayToken(formatReplayToken(t))).toEqual({ ok: true, token: t });
      }),
    );
  });
});

/** Shipped TypeScript: the layers' folders (not tests, not tools, not the vectors' generator). */
function shipped(): string[] {
  const layers = ['cli', 'conformance', 'net', 'node', 'redis', 'server', 'src', 'vectors'];
  return layers
    .flatMap((dir) =>
      (readdirSync(`${ROOT}/${dir}`, { recursive: true }) as string[]).map((f) => `${dir}/${f}`),
    )
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('vectors/build/'));
}

const mentions = (pattern: RegExp): string[] =>
  shipped().filter((f) => pattern.test(readFileSync(`${ROOT}/${f}`, 'utf8')));

describe('one explorer engine', () => {
  it('fast-check searches run only in the engine (and the drawn forgeries, one request each, no sequence)', () => {
    expect(mentions(/\bfc\.(check|assert)\(/).sort()).toEqual([
      'conformance/checks/server/signature-forgeries.ts',
      'conformance/explore/engine.ts',
    ]);
  });

  it("sequences are played only by the roles' play (the server role's model run)", () => {
    expect(mentions(/\bfc\.(asyncModelRun|modelRun|scheduledModelRun)\(/)).toEqual([
      'conformance/explore/lane.ts',
    ]);
  });

  it('a replay token is read and written only by replay-token.ts', () => {
    // A token's separator in a split, a regular expression or a template: the marks of a grammar.
    const grammar = /split\(\s*['"`]~|\/\^[^/\n]*\\d[^/\n]*~|`\$\{[^`]*\}~\$\{/;
    // The two grammars there were before this one, each as its module wrote it: the guard sees them.
    for (const second of [
      'const m = /^(-?\\d{1,10})~(\\d+(?::\\d+)*)$/.exec(token.trim());',
      'const m = /^(\\d+)~([0-9:]+)~([A-Za-z0-9+/=_:-]*?)(~patient)?$/.exec(token);',
      'return `${t.seed}~${t.path}~${t.replayPath}`;',
      "const [seed, path] = token.split('~');",
    ])
      expect(grammar.test(second), second).toBe(true);
    expect(mentions(grammar)).toEqual(['conformance/explore/replay-token.ts']);
  });
});

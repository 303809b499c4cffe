// Every wait in a test is an event or a bound on one: no file under test/ sleeps a stated number of milliseconds and
// then asserts (a guess at how long something takes, red on a loaded machine and slow on an idle one), outside the
// few files below that test time itself. A test waits for the event (a webhook arrived, a socket closed, a log line
// written, a state reached), or polls for it within a bound (test/fixtures/until.ts). The detection is
// test/fixtures/fixed-waits.ts; its samples below show that it fails on each form of such a wait.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedWaitsThenAsserts } from './fixtures/fixed-waits.js';

/** The files that test time itself and may sleep a stated time before they judge, each with why. */
const TIME_UNDER_TEST: Readonly<Record<string, string>> = {
  'test/conformance-engine.test.ts':
    "the engine's scheduler: checks that last a stated time, so that they overlap (concurrency, serial, abort)",
};

/** Every TypeScript file under `dir` (node_modules left out). */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourcesUnder(path);
    return /\.m?ts$/.test(name) ? [path] : [];
  });
}

const found = (file: string): string[] =>
  fixedWaitsThenAsserts(readFileSync(file, 'utf8'), file).map(
    (w) => `${file}:${w.line}: ${w.text}`,
  );

describe('waits in tests', () => {
  const files = sourcesUnder('test');

  it('no test file sleeps a stated time and then asserts, outside the files that test time itself', () => {
    expect(files.length).toBeGreaterThan(150);
    const offending = files.filter((f) => !(f in TIME_UNDER_TEST)).flatMap(found);
    expect(
      offending,
      'wait for the event, or poll for the state within a bound (test/fixtures/until.ts)',
    ).toEqual([]);
  });

  it('lists only existing files that still hold such a wait, each with its reason', () => {
    for (const [file, reason] of Object.entries(TIME_UNDER_TEST)) {
      expect(files).toContain(file);
      expect(reason.length, file).toBeGreaterThan(20);
      expect(found(file), `${file} no longer sleeps: take it off the list`).not.toEqual([]);
    }
  });
});

describe('the detection (test/fixtures/fixed-waits.ts)', () => {
  const lines = (source: string) => fixedWaitsThenAsserts(source).map((w) => w.line);

  it('finds a fixed sleep followed by an assertion, in each form', () => {
    // A timer promise, then expect.
    expect(
      lines(`it('x', async () => {
  await send();
  await new Promise((r) => setTimeout(r, 1_500));
  expect(received).toHaveLength(1);
});`),
    ).toEqual([3]);
    // A sleep helper of the file, the assertion further down the block.
    expect(
      lines(`const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
it('x', async () => {
  await sleep(250);
  const n = lines.length;
  expect.soft(n).toBe(3);
});`),
    ).toEqual([3]);
    // node:timers/promises under another name; assert; a duration computed from literals.
    expect(
      lines(`import { setTimeout as nap } from 'node:timers/promises';
test('x', async () => {
  await nap(2 * 1000);
  assert.ok(done);
});`),
    ).toEqual([3]);
    // A scenario whose answer its caller asserts; a timer callback that calls resolve.
    expect(
      lines(`const scenario = async () => {
  await new Promise((resolve) => setTimeout(() => resolve(undefined), lapseMs + 200));
  return hooks.length === 1;
};`),
    ).toEqual([2]);
  });

  it('passes a bounded poll, a bound raced with an event, a named duration, a sleep judged by nothing', () => {
    const passing = [
      // The interval of a poll: the loop bounds it.
      `for (let i = 0; i < 50 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
expect(done()).toBe(true);`,
      `while (Date.now() < end) { if (await probe()) break; await sleep(25); }
expect(await probe()).toBe(true);`,
      // An event, with a timer that only bounds it.
      `await new Promise((resolve, reject) => {
  child.once('exit', resolve);
  setTimeout(() => reject(new Error('no exit within 5 s')), 5_000);
});
expect(child.exitCode).toBe(0);`,
      // A duration the code under test states (a window, a timer), not a guess.
      `await sleep(windowMs);
expect(lines).toHaveLength(3);`,
      // Nothing judged after it; a drawn interleaving; words in comments and strings.
      `await sleep(10);
server.close();`,
      `await new Promise((r) => setTimeout(r, Math.random() * 5));
expect(store.size).toBe(1);`,
      `// await new Promise((r) => setTimeout(r, 1500));
const text = 'await sleep(1500)';
expect(text).toBeDefined();`,
    ];
    for (const source of passing) expect(lines(source), source).toEqual([]);
  });
});

// `payconform vectors run`: the NDJSON harness against the example Python adapter (must pass every case), the
// library's own adapter, and deliberately broken adapters (crashing, hanging, garbage, wrong base, unsupported).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadVectorSet, messageInput } from '../vectors/harness/load.js';
import { helloMessage, type HarnessReport } from '../vectors/harness/run.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';
import { CLI_ARGS } from './fixtures/cli.js';
import { until } from './fixtures/until.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'payconform-harness-'));
const PY_ADAPTER = join(root, 'vectors/adapters/python/adapter.py');
const TOTAL = (
  JSON.parse(readFileSync(join(root, 'vectors/index.json'), 'utf8')) as { totalCases: number }
).totalCases;

function pythonStatus(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import cryptography'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.error) return `python3 not found (${r.error.message})`;
  if (r.status !== 0)
    return `python3 cannot import the cryptography package: ${r.stderr.trim().split('\n').pop() ?? ''}`;
  return undefined;
}
const pythonMissing = pythonStatus();
if (pythonMissing) console.warn(`SKIPPED: Python adapter tests: ${pythonMissing}`);

function script(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

/** Runs the command in-process; returns exit code, stdout, stderr. */
async function run(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const io = createMemoryIo();
  const code = await main(argv, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

/** False when the process is gone or a zombie (killed, waiting for a parent that may never reap it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const node = (path: string): string => `"${process.execPath}" "${path}"`;
const few = [
  'digest-sha512-payout-body',
  'sign-post-payout',
  'verify-post-payout-valid',
  'verify-nonce-replayed',
  'webhook-payment-valid',
];

describe('vectors run: the example Python adapter (vectors/adapters/python/adapter.py)', () => {
  it.skipIf(pythonMissing !== undefined)(
    `passes every case, spawned from the outside, with JSON and JUnit reports${pythonMissing ? ` [SKIPPED: ${pythonMissing}]` : ''}`,
    () => {
      const json = join(work, 'py.json');
      const junit = join(work, 'py.xml');
      const r = spawnSync(
        process.execPath,
        [
          ...CLI_ARGS,
          'vectors',
          'run',
          '--exec',
          `python3 "${PY_ADAPTER}"`,
          '--report',
          `json:${json}`,
          '--report',
          `junit:${junit}`,
        ],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(r.stdout).toContain(`${TOTAL} cases: ${TOTAL} passed, 0 failed, 0 skipped`);
      expect(r.status).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
      expect(report.summary).toEqual({
        total: TOTAL,
        passed: TOTAL,
        failed: 0,
        skipped: 0,
        inexpressible: 0,
        notRun: 0,
      });
      expect(report.started).toBe(true);
      expect(report.protocol).toBe(2);
      expect(report.implementation?.name).toMatch(/python/i);
      expect(report.cases.every((c) => c.status === 'pass')).toBe(true);
      const xml = readFileSync(junit, 'utf8');
      expect(xml.match(/<testcase /g)?.length).toBe(TOTAL);
      expect(xml).toContain(`tests="${TOTAL}" failures="0"`);
    },
  );

  it.skipIf(pythonMissing !== undefined)(
    `a wrapper that corrupts one line of the signature base fails exactly the base-bearing cases${pythonMissing ? ` [SKIPPED: ${pythonMissing}]` : ''}`,
    async () => {
      const wrapper = script(
        'wrong-base.py',
        [
          'import json, sys',
          `sys.path.insert(0, ${JSON.stringify(join(root, 'vectors/adapters/python'))})`,
          'import adapter',
          'for line in sys.stdin:',
          '    a = adapter.answer(json.loads(line))',
          '    r = a.get("result") or {}',
          '    if isinstance(r.get("signatureBase"), str):',
          '        r["signatureBase"] = r["signatureBase"].replace("\\"@authority\\": ", "\\"@authority\\":  ", 1)',
          '    print(json.dumps(a), flush=True)',
        ].join('\n'),
      );
      const json = join(work, 'wrong.json');
      const html = join(work, 'wrong.html');
      const r = await run([
        'vectors',
        'run',
        '--exec',
        `python3 "${wrapper}"`,
        '--report',
        `json:${json}`,
        '--report',
        `html:${html}`,
      ]);
      expect(r.code).toBe(1);
      // The same report formats as the audits: the HTML page opens with an index of failures linking to each case.
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('<h1>payconform vectors run: FAIL</h1>');
      expect(page).toMatch(/<h2>Index of failures \(\d+\)<\/h2><ol><li><a href="#/);
      expect(page).toContain('<a href="#base-post-payout"><code>base-post-payout</code></a>');
      const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
      const failed = report.cases.filter((c) => c.status === 'fail');
      expect(failed.length).toBeGreaterThan(30);
      expect(
        failed.every(
          (c) => c.op === 'sign' || c.op === 'signature-base' || c.op === 'rfc9421-signature-base',
        ),
      ).toBe(true);
      expect(failed.find((c) => c.id === 'base-post-payout')?.message).toMatch(
        /signature base differs at line 3: expected "\\"@authority\\": api/,
      );
      expect(r.out).toContain('FAIL sign-post-payout');
    },
  );
});

describe("vectors run: the library's own adapter (vectors/adapters/node/adapter.ts)", () => {
  it('passes every case', async () => {
    const r = await run([
      'vectors',
      'run',
      '--exec',
      `"${process.execPath}" --import tsx "${join(root, 'vectors/adapters/node/adapter.ts')}"`,
      '--timeout-ms',
      '20000',
    ]);
    expect(r.out).toContain(`${TOTAL} cases: ${TOTAL} passed, 0 failed, 0 skipped`);
    expect(r.code).toBe(0);
  });
});

describe('vectors run: broken implementations get a clear error per case and a bounded run', () => {
  it('a crashing adapter: the case it crashed on fails, later cases are counted as not run; stderr is reported; exit 1', async () => {
    const crash = script(
      'crash.mjs',
      "import { createInterface } from 'node:readline';\nfor await (const line of createInterface({ input: process.stdin })) {\n  const m = JSON.parse(line);\n  if (m.op === 'hello') { console.log(JSON.stringify({ id: m.id, unsupported: true })); continue; }\n  console.error('adapter: \\u001b[2J segfault in sign()\\u0007 \\u202e'); process.exit(3);\n}\n",
    );
    const json = join(work, 'crash.json');
    const started = Date.now();
    const r = await run([
      'vectors',
      'run',
      '--exec',
      node(crash),
      '--only',
      few.join(','),
      '--report',
      `json:${json}`,
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
    expect(report.cases.map((c) => c.message)).toEqual([
      'the implementation exited with code 3 before answering',
    ]);
    expect(report.summary).toMatchObject({ failed: 1, notRun: few.length - 1 });
    expect(report.adapterStderr).toContain('segfault in sign()');
    expect(r.out).toContain('run stopped early: the implementation exited with code 3');
    // What the implementation wrote reaches the terminal inert: ESC, BEL and U+202E shown as escapes.
    expect(r.out).toContain('adapter: \\x1b[2J segfault in sign()\\x07 \\u202e');
    expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(r.out).toContain(`1 cases: 0 passed, 1 failed, 0 skipped, ${few.length - 1} not run`);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a hanging adapter: each case times out, the run stops after 3 silent cases, and the child is killed', async () => {
    const pidFile = join(work, 'hang.pid');
    // Answers the handshake, then never again.
    const hang = script(
      'hang.mjs',
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.stdin.once('data', (d) => console.log(JSON.stringify({ id: JSON.parse(String(d).split('\\n')[0]).id, result: { protocol: 2, implementation: { name: 'hang' } } })));\nsetInterval(() => {}, 1000);\n`,
    );
    const json = join(work, 'hang.json');
    const started = Date.now();
    const r = await run([
      'vectors',
      'run',
      '--exec',
      node(hang),
      '--only',
      few.join(','),
      '--timeout-ms',
      '300',
      '--report',
      `json:${json}`,
    ]);
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
    expect(report.cases.slice(0, 3).map((c) => c.message)).toEqual(
      Array(3).fill('no answer within 300 ms'),
    );
    expect(report.aborted).toBe('the implementation gave no answer to 3 cases in a row');
    expect(report.cases).toHaveLength(3);
    expect(report.summary.notRun).toBe(few.length - 3);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // Killed: gone once the signal has been delivered and the exit reaped (awaited, bounded).
    await until(`the hanging adapter (pid ${pid}) gone`, () => !isAlive(pid), 5_000);
  });

  it('an adapter printing garbage: each case fails with the offending line quoted', async () => {
    const garbage = script(
      'garbage.mjs',
      "import { createInterface } from 'node:readline';\nfor await (const _ of createInterface({ input: process.stdin })) console.log('OK computing...');\n",
    );
    const json = join(work, 'garbage.json');
    const r = await run([
      'vectors',
      'run',
      '--exec',
      node(garbage),
      '--only',
      few.join(','),
      '--report',
      `json:${json}`,
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
    expect(report.cases.map((c) => c.message)).toEqual(
      Array(few.length).fill(
        'implementation printed a line that is not a JSON object: "OK computing..."',
      ),
    );
  });

  it('a wrong answer shape and a wrong verdict are failures naming what is wrong', async () => {
    const liar = script(
      'liar.mjs',
      [
        "import { createInterface } from 'node:readline';",
        'for await (const line of createInterface({ input: process.stdin })) {',
        '  const m = JSON.parse(line);',
        "  const result = m.op === 'verify' ? { ok: true } : m.op === 'digest' ? { digest: 'x' } : null;",
        "  console.log(JSON.stringify(result ? { id: m.id, result } : { id: m.id, error: 'not implemented: ' + m.op }));",
        '}',
      ].join('\n'),
    );
    const json = join(work, 'liar.json');
    const r = await run([
      'vectors',
      'run',
      '--exec',
      node(liar),
      '--only',
      few.join(','),
      '--report',
      `json:${json}`,
    ]);
    expect(r.code).toBe(1);
    const byId = new Map(
      (JSON.parse(readFileSync(json, 'utf8')) as HarnessReport).cases.map((c) => [c.id, c]),
    );
    expect(byId.get('verify-post-payout-valid')!.status).toBe('pass');
    expect(byId.get('verify-nonce-replayed')!.message).toBe(
      'accepted an invalid case (expected NONCE_REPLAYED)',
    );
    expect(byId.get('digest-sha512-payout-body')!.message).toBe('wrong Content-Digest value');
    expect(byId.get('sign-post-payout')!.message).toBe(
      'implementation reported an error: not implemented: sign',
    );
  });

  it('unsupported ops are skipped: INCOMPLETE (exit 4) by default, exit 0 with --allow-skips, exit 1 with --fail-on skip', async () => {
    const none = script(
      'none.mjs',
      "import { createInterface } from 'node:readline';\nfor await (const line of createInterface({ input: process.stdin })) console.log(JSON.stringify({ id: JSON.parse(line).id, unsupported: true }));\n",
    );
    const lenient = await run(['vectors', 'run', '--exec', node(none), '--only', few.join(',')]);
    expect(lenient.out).toContain(`${few.length} cases: 0 passed, 0 failed, ${few.length} skipped`);
    expect(lenient.out).toContain('verdict: INCOMPLETE');
    expect(lenient.code).toBe(4);
    const allowed = await run([
      'vectors',
      'run',
      '--exec',
      node(none),
      '--only',
      few.join(','),
      '--allow-skips',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.out).toContain('verdict: PASS');
    expect(
      (
        await run([
          'vectors',
          'run',
          '--exec',
          node(none),
          '--only',
          few.join(','),
          '--fail-on',
          'skip',
        ])
      ).code,
    ).toBe(1);
  });
});

describe('vectors run: protocol 2 (handshake, cannot express, structured errors)', () => {
  it('an adapter silent at the handshake is one error (exit 3) after --startup-timeout-ms, naming the handshake', async () => {
    const silent = script('silent.mjs', 'process.stdin.resume();\nsetInterval(() => {}, 1000);\n');
    const json = join(work, 'silent.json');
    const started = Date.now();
    const r = await run([
      'vectors',
      'run',
      '--exec',
      node(silent),
      '--only',
      few.join(','),
      '--timeout-ms',
      '200',
      '--startup-timeout-ms',
      '400',
      '--report',
      `json:${json}`,
    ]);
    expect(r.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(10_000);
    const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
    expect(report.aborted).toMatch(/did not answer the "hello" handshake within 400 ms/);
    expect(report.started).toBe(false);
    expect((report as HarnessReport & { verdict: string }).verdict).toBe('NOT STARTED');
    expect(report.cases).toEqual([]);
    expect(report.summary).toMatchObject({ total: 0, failed: 0, notRun: few.length });
    expect(r.out).toMatch(/^ERROR the implementation did not start: /);
    expect(r.out).not.toContain('FAIL ');
  });

  it('an adapter that does not exist is one error naming it (exit 3), not one failure per case', async () => {
    const r = await run(['vectors', 'run', '--exec', join(work, 'no-such-adapter.py')]);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(
      /^ERROR the implementation did not start: the implementation exited with code 127 before answering the "hello" handshake/,
    );
    expect(r.out).toContain('no-such-adapter.py');
    expect(r.out).toContain(`no case run (${TOTAL} in the set)`);
    expect(r.out).not.toContain('FAIL ');
  });

  it('an adapter choosing a protocol the harness does not speak ends the run with both versions named', async () => {
    const future = script(
      'future.mjs',
      "import { createInterface } from 'node:readline';\nfor await (const line of createInterface({ input: process.stdin })) console.log(JSON.stringify({ id: JSON.parse(line).id, result: { protocol: 9 } }));\n",
    );
    const r = await run(['vectors', 'run', '--exec', node(future), '--only', few.join(',')]);
    expect(r.code).toBe(3);
    expect(r.out).toContain(
      'ERROR the implementation did not start: the implementation chose protocol 9; this harness speaks 1 and 2',
    );
  });

  it('cannotExpress is its own status (exit 4, --allow-skips 0, --strict 1) carrying the deviation; an error object is a failure with its message', async () => {
    const partial = script(
      'partial.mjs',
      [
        "import { createInterface } from 'node:readline';",
        'for await (const line of createInterface({ input: process.stdin })) {',
        '  const m = JSON.parse(line);',
        "  if (m.op === 'hello') console.log(JSON.stringify({ id: m.id, result: { protocol: 2, implementation: { name: 'partial-lib', version: '1.2.3' } } }));",
        "  else if (m.op === 'sign') console.log(JSON.stringify({ id: m.id, error: { message: 'key import failed' } }));",
        "  else console.log(JSON.stringify({ id: m.id, cannotExpress: { deviation: 'path-query', reason: 'no @path hook' } }));",
        '}',
      ].join('\n'),
    );
    const json = join(work, 'partial.json');
    const only = few.filter((id) => id !== 'sign-post-payout').join(',');
    const lenient = await run([
      'vectors',
      'run',
      '--exec',
      node(partial),
      '--only',
      only,
      '--report',
      `json:${json}`,
    ]);
    expect(lenient.code).toBe(4);
    expect(lenient.out).toContain('implementation: partial-lib 1.2.3 (protocol 2)');
    expect(lenient.out).toContain('4 cases: 0 passed, 0 failed, 0 skipped, 4 cannot be expressed');
    const report = JSON.parse(readFileSync(json, 'utf8')) as HarnessReport;
    expect(report.implementation).toEqual({ name: 'partial-lib', version: '1.2.3' });
    expect(
      report.cases.every(
        (c) =>
          c.status === 'inexpressible' &&
          c.deviation === 'path-query' &&
          c.message === 'implementation cannot express this case (path-query): no @path hook',
      ),
    ).toBe(true);
    expect(
      (await run(['vectors', 'run', '--exec', node(partial), '--only', only, '--strict'])).code,
    ).toBe(1);
    expect(
      (await run(['vectors', 'run', '--exec', node(partial), '--only', only, '--allow-skips']))
        .code,
    ).toBe(0);
    const failed = await run([
      'vectors',
      'run',
      '--exec',
      node(partial),
      '--only',
      'sign-post-payout',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain(
      'FAIL sign-post-payout (request-signing.json, sign): implementation reported an error: key import failed',
    );
  });
});

describe('vectors run: usage errors exit 2', () => {
  it.each([
    [['vectors', 'run'], /--exec "CMD" is required/],
    [
      ['vectors', 'run', '--exec', 'true', '--only', 'no-such-case'],
      /no vector file, op or case id "no-such-case"/,
    ],
    [
      ['vectors', 'run', '--exec', 'true', '--report', 'pdf:x'],
      /--report expects FORMAT:PATH with FORMAT one of json, junit, html/,
    ],
    [['vectors', 'run', '--exec', 'true', '--timeout-ms', '0'], /--timeout-ms expects an integer/],
    [['vectors', 'run', '--exec', 'true', '--frobnicate'], /Unknown option '--frobnicate'/],
    [
      ['vectors', 'run', '--exec', 'true', '--allow-skips', '--fail-on', 'skip'],
      /contradict each other/,
    ],
    [
      ['vectors', 'run', '--exec', 'true', '--dir', '/nonexistent-vectors'],
      /cannot read the vectors/,
    ],
  ])('%j', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('a vector directory whose files break the schema is a usage error naming the file and the pointer', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'payconform-badvectors-'));
    writeFileSync(join(bad, 'index.json'), readFileSync(join(root, 'vectors/index.json')));
    writeFileSync(join(bad, 'keys.json'), readFileSync(join(root, 'vectors/keys.json')));
    const file = JSON.parse(readFileSync(join(root, 'vectors/content-digest.json'), 'utf8')) as {
      cases: Array<{ result: string }>;
    };
    file.cases[0]!.result = 'maybe';
    writeFileSync(join(bad, 'content-digest.json'), JSON.stringify(file));
    const r = await run(['vectors', 'run', '--exec', 'true', '--dir', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/content-digest\.json does not match .*\/cases\/0\/result/);
  });

  it('--help prints the protocol summary and the exit codes and exits 0, from the outside', () => {
    const out = execFileSync(process.execPath, [...CLI_ARGS, 'vectors', 'run', '--help'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out).toContain('protocol: vectors/README.md');
    expect(out).toContain('   3  the adapter did not start or did not answer the handshake');
    expect(out).toContain('   4  INCOMPLETE: nothing failed, but cases were skipped');
  });
});

describe('vectors run: the protocol is versioned with a JSON Schema per message (vectors/harness/protocol/)', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const schema = (name: string) =>
    ajv.compile(
      JSON.parse(
        readFileSync(join(root, `vectors/harness/protocol/${name}.schema.json`), 'utf8'),
      ) as object,
    );
  const helloRequest = schema('hello-request');
  const helloAnswer = schema('hello-answer');
  const caseRequest = schema('case-request');
  const caseAnswer = schema('case-answer');

  it('the handshake and every case request the harness writes match their schemas', async () => {
    expect(helloRequest(helloMessage(5000)), JSON.stringify(helloRequest.errors)).toBe(true);
    const set = await loadVectorSet(join(root, 'vectors'));
    for (const { vector } of set.cases) {
      const ok = caseRequest({
        id: vector.id,
        op: vector.op,
        input: messageInput(set.keys, vector),
      });
      expect(ok, `${vector.id}: ${JSON.stringify(caseRequest.errors)}`).toBe(true);
    }
    expect(caseRequest({ id: '#hello', op: 'hello', input: {} })).toBe(false);
  });

  it("every line a third-party adapter prints (result, unsupported, cannotExpress) and the Node adapters' handshakes match", async () => {
    const log = join(work, 'answers.ndjson');
    const adapter = join(root, 'vectors/adapters/http-message-sig/adapter.ts');
    await run([
      'vectors',
      'run',
      '--exec',
      `"${process.execPath}" --import tsx "${adapter}" | tee "${log}"`,
      '--timeout-ms',
      '20000',
    ]);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            result?: unknown;
            cannotExpress?: unknown;
            unsupported?: unknown;
          },
      );
    expect(helloAnswer(lines[0]), JSON.stringify(helloAnswer.errors)).toBe(true);
    expect(lines.length).toBe(TOTAL + 1);
    for (const line of lines.slice(1))
      expect(caseAnswer(line), `${line.id}: ${JSON.stringify(caseAnswer.errors)}`).toBe(true);
    expect(
      lines.some((l) => l.cannotExpress !== undefined) &&
        lines.some((l) => l.unsupported === true) &&
        lines.some((l) => l.result !== undefined),
    ).toBe(true);
    // The schema rejects what the harness would also not accept as an answer.
    expect(caseAnswer({ id: 'x', result: {}, error: 'both' })).toBe(false);
    expect(caseAnswer({ id: 'x', cannotExpress: { reason: 'no deviation named' } })).toBe(false);
    expect(caseAnswer({ id: 'x', error: { message: 'key import failed' } })).toBe(true);
  });
});

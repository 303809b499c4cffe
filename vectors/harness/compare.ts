// Grades one adapter answer against a case's expected output. Pure: no I/O, never throws on odd answers.
import type { VectorCase } from '../format.js';

/**
 * `skip`: the implementation has no such op (`unsupported`). `inexpressible`: it has the op, but the library cannot be
 * configured to follow the profile rule this case exercises (`cannotExpress`, protocol 2); like a skip, it fails the
 * run only with `--fail-on skip` (old name `--strict`), and it names the deviation so the interop matrix can explain it.
 */
export type CaseStatus = 'pass' | 'fail' | 'skip' | 'inexpressible';

export interface Grade {
  readonly status: CaseStatus;
  /** One line saying why (always set for fail and skip; for pass only when something is worth noting). */
  readonly message?: string;
  readonly expected?: unknown;
  readonly received?: unknown;
  /** For `inexpressible`: the profile deviation the adapter named. */
  readonly deviation?: string;
}

export interface CompareOptions {
  /** Compare only valid/invalid, not the error code (for implementations with their own error taxonomy). */
  readonly ignoreCodes?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where two texts first differ, as "line N: expected … received …" (the first thing to look at in a base). */
export function firstDifference(expected: string, received: string): string {
  const a = expected.split('\n');
  const b = received.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return `line ${i + 1}: expected ${JSON.stringify(a[i] ?? '<no line>')}, received ${JSON.stringify(b[i] ?? '<no line>')}`;
    }
  }
  return 'texts are equal';
}

function fail(message: string, expected?: unknown, received?: unknown): Grade {
  return { status: 'fail', message, expected, received };
}

/** Grades the `result` object of a verification-style answer: `{ <okKey>: boolean, code? }`. */
function gradeVerdict(
  vector: VectorCase,
  result: Record<string, unknown>,
  okKey: 'ok' | 'valid',
  expected: { ok: boolean; code?: string },
  options: CompareOptions,
): Grade {
  const verdict = result[okKey];
  // What the case expects, in the answer's own shape ({"valid": …} for digest, {"ok": …} otherwise).
  const shown = {
    [okKey]: expected.ok,
    ...(!expected.ok && expected.code !== undefined ? { code: expected.code } : {}),
  };
  if (typeof verdict !== 'boolean') return fail(`answer has no boolean "${okKey}"`, shown, result);
  if (vector.result === 'acceptable') {
    return {
      status: 'pass',
      message: `acceptable case: implementation answered ${okKey}=${verdict}${typeof result.code === 'string' ? ` (${result.code})` : ''}`,
    };
  }
  if (verdict !== expected.ok) {
    return fail(
      expected.ok
        ? `rejected a valid case${typeof result.code === 'string' ? ` with ${result.code}` : ''}`
        : `accepted an invalid case (expected ${expected.code ?? 'a rejection'})`,
      shown,
      result,
    );
  }
  if (
    !expected.ok &&
    !options.ignoreCodes &&
    expected.code !== undefined &&
    result.code !== expected.code
  ) {
    return fail(
      `rejected with the wrong code: expected ${expected.code}, received ${JSON.stringify(result.code ?? null)}`,
      shown,
      result,
    );
  }
  return { status: 'pass' };
}

function lowerHeaderMap(headers: unknown): Map<string, string[]> | undefined {
  if (!Array.isArray(headers)) return undefined;
  const map = new Map<string, string[]>();
  for (const line of headers) {
    if (
      !Array.isArray(line) ||
      line.length !== 2 ||
      typeof line[0] !== 'string' ||
      typeof line[1] !== 'string'
    )
      return undefined;
    const name = line[0].toLowerCase();
    map.set(name, [...(map.get(name) ?? []), line[1]]);
  }
  return map;
}

/** Grades an answer line (already parsed as a JSON object) for `vector`. */
export function gradeAnswer(
  vector: VectorCase,
  answer: Record<string, unknown>,
  options: CompareOptions = {},
): Grade {
  if (answer.unsupported === true) {
    return {
      status: 'skip',
      message: `implementation does not support op "${vector.op}"${typeof answer.reason === 'string' ? `: ${answer.reason}` : ''}`,
    };
  }
  if (answer.cannotExpress !== undefined && answer.cannotExpress !== false) {
    const c = answer.cannotExpress;
    const deviation = isObject(c) && typeof c.deviation === 'string' ? c.deviation : undefined;
    const reason =
      isObject(c) && typeof c.reason === 'string'
        ? c.reason
        : typeof c === 'string'
          ? c
          : 'no reason given';
    return {
      status: 'inexpressible',
      message: `implementation cannot express this case${deviation ? ` (${deviation})` : ''}: ${reason}`,
      ...(deviation ? { deviation } : {}),
    };
  }
  // Protocol 1 sends the error as a string; protocol 2 as {"message", "detail"?}.
  if (typeof answer.error === 'string')
    return fail(`implementation reported an error: ${answer.error}`, vector.expected, answer.error);
  if (isObject(answer.error) && typeof answer.error.message === 'string')
    return fail(
      `implementation reported an error: ${answer.error.message}`,
      vector.expected,
      answer.error,
    );
  const result = answer.result;
  if (!isObject(result))
    return fail(
      'answer has neither "result" (an object), "error" nor "unsupported"',
      vector.expected,
      answer,
    );

  switch (vector.op) {
    case 'digest': {
      const e = vector.expected;
      if ('contentDigest' in e) {
        return result.contentDigest === e.contentDigest
          ? { status: 'pass' }
          : fail('wrong Content-Digest value', e.contentDigest, result.contentDigest);
      }
      return gradeVerdict(
        vector,
        result,
        'valid',
        e.valid ? { ok: true } : { ok: false, code: e.code },
        options,
      );
    }
    case 'signature-base':
    case 'rfc9421-signature-base': {
      const e = vector.expected;
      if ('error' in e) {
        if (typeof result.signatureBase === 'string')
          return fail(`built a signature base where ${e.error} was expected`, e, result);
        if (!options.ignoreCodes && result.error !== e.error)
          return fail(
            `wrong error: expected ${e.error}, received ${JSON.stringify(result.error ?? null)}`,
            e,
            result,
          );
        return { status: 'pass' };
      }
      if (typeof result.signatureBase !== 'string')
        return fail('answer has no string "signatureBase"', e.signatureBase, result);
      return result.signatureBase === e.signatureBase
        ? { status: 'pass' }
        : fail(
            `signature base differs at ${firstDifference(e.signatureBase, result.signatureBase)}`,
            e.signatureBase,
            result.signatureBase,
          );
    }
    case 'sign': {
      const e = vector.expected;
      if (typeof result.signatureBase !== 'string')
        return fail('answer has no string "signatureBase"', e, result);
      if (result.signatureBase !== e.signatureBase) {
        return fail(
          `signature base differs at ${firstDifference(e.signatureBase, result.signatureBase)}`,
          e.signatureBase,
          result.signatureBase,
        );
      }
      const got = lowerHeaderMap(result.headers);
      if (!got)
        return fail(
          '"headers" must be an array of [name, value] string pairs',
          e.headers,
          result.headers,
        );
      for (const [name, value] of e.headers) {
        const values = got.get(name.toLowerCase()) ?? [];
        if (values.length !== 1 || values[0] !== value) {
          return fail(
            `header ${name}: expected ${JSON.stringify(value)}, received ${JSON.stringify(values.length === 1 ? values[0] : values)}`,
            value,
            values,
          );
        }
        got.delete(name.toLowerCase());
      }
      if (got.size > 0)
        return fail(
          `unexpected header(s) added: ${[...got.keys()].join(', ')}`,
          e.headers,
          result.headers,
        );
      return { status: 'pass' };
    }
    case 'verify': {
      const e = vector.expected;
      return gradeVerdict(
        vector,
        result,
        'ok',
        e.ok ? { ok: true } : { ok: false, code: e.code },
        options,
      );
    }
    case 'webhook-verify': {
      const e = vector.expected;
      return gradeVerdict(
        vector,
        result,
        'ok',
        e.ok ? { ok: true } : { ok: false, code: e.code },
        options,
      );
    }
    case 'rfc9421-verify':
      return gradeVerdict(vector, result, 'ok', { ok: vector.expected.ok }, options);
    case 'parse-key': {
      const e = vector.expected;
      const verdict = gradeVerdict(
        vector,
        result,
        'ok',
        e.ok ? { ok: true } : { ok: false, code: e.code },
        options,
      );
      if (verdict.status !== 'pass' || !e.ok || vector.result === 'acceptable') return verdict;
      return result.publicKey === e.publicKey
        ? verdict
        : fail('parsed to a different public key', e.publicKey, result.publicKey);
    }
  }
}

// Grades one adapter answer against a case's expected output. Pure: no I/O, never throws on odd answers.
import type {
  ParseKeyExpected,
  SignatureBaseExpected,
  SignExpected,
  VectorCase,
} from '../format.js';

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
  const withoutResult = gradeDeclined(vector, answer) ?? gradeReportedError(vector, answer);
  if (withoutResult !== undefined) return withoutResult;
  const result = answer.result;
  if (!isObject(result))
    return fail(
      'answer has neither "result" (an object), "error" nor "unsupported"',
      vector.expected,
      answer,
    );
  return gradeResult(vector, result, options);
}

/** An answer that declines the case: the op is `unsupported`, or the library `cannotExpress` the rule. */
function gradeDeclined(vector: VectorCase, answer: Record<string, unknown>): Grade | undefined {
  if (answer.unsupported === true) {
    return {
      status: 'skip',
      message: `implementation does not support op "${vector.op}"${typeof answer.reason === 'string' ? `: ${answer.reason}` : ''}`,
    };
  }
  if (answer.cannotExpress === undefined || answer.cannotExpress === false) return undefined;
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

/** An answer that reports an error: protocol 1 sends it as a string; protocol 2 as {"message", "detail"?}. */
function gradeReportedError(
  vector: VectorCase,
  answer: Record<string, unknown>,
): Grade | undefined {
  if (typeof answer.error === 'string')
    return fail(`implementation reported an error: ${answer.error}`, vector.expected, answer.error);
  if (isObject(answer.error) && typeof answer.error.message === 'string')
    return fail(
      `implementation reported an error: ${answer.error.message}`,
      vector.expected,
      answer.error,
    );
  return undefined;
}

/** The verdict a verification-style case expects: ok, or a rejection with its code. */
function expectedVerdict(e: { readonly ok: boolean; readonly code?: string }): {
  ok: boolean;
  code?: string;
} {
  return e.ok ? { ok: true } : { ok: false, code: e.code };
}

/** Grades the `result` object of an answer by the case's op. */
function gradeResult(
  vector: VectorCase,
  result: Record<string, unknown>,
  options: CompareOptions,
): Grade {
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
    case 'rfc9421-signature-base':
      return gradeSignatureBase(vector.expected, result, options);
    case 'sign':
      return gradeSign(vector.expected, result);
    case 'verify':
    case 'webhook-verify':
      return gradeVerdict(vector, result, 'ok', expectedVerdict(vector.expected), options);
    case 'rfc9421-verify':
      return gradeVerdict(vector, result, 'ok', { ok: vector.expected.ok }, options);
    case 'parse-key':
      return gradeParseKey(vector, vector.expected, result, options);
  }
}

/** A signature base (profile or RFC 9421), or the error a case expects instead of one. */
function gradeSignatureBase(
  e: SignatureBaseExpected,
  result: Record<string, unknown>,
  options: CompareOptions,
): Grade {
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
  return sameSignatureBase(e.signatureBase, result.signatureBase) ?? { status: 'pass' };
}

/** A failure when the signature base differs from the expected one, at its first different line. */
function sameSignatureBase(expected: string, received: string): Grade | undefined {
  if (received === expected) return undefined;
  return fail(
    `signature base differs at ${firstDifference(expected, received)}`,
    expected,
    received,
  );
}

/** A signed request: the signature base, then exactly the header lines the signer adds. */
function gradeSign(e: SignExpected, result: Record<string, unknown>): Grade {
  if (typeof result.signatureBase !== 'string')
    return fail('answer has no string "signatureBase"', e, result);
  const differs = sameSignatureBase(e.signatureBase, result.signatureBase);
  if (differs !== undefined) return differs;
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

/** A parsed key: the verdict, then (for a key that parses) the public key it parsed to. */
function gradeParseKey(
  vector: VectorCase,
  e: ParseKeyExpected,
  result: Record<string, unknown>,
  options: CompareOptions,
): Grade {
  const verdict = gradeVerdict(vector, result, 'ok', expectedVerdict(e), options);
  if (verdict.status !== 'pass' || !e.ok || vector.result === 'acceptable') return verdict;
  return result.publicKey === e.publicKey
    ? verdict
    : fail('parsed to a different public key', e.publicKey, result.publicKey);
}

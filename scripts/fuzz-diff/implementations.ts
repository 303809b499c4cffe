// The implementations the differential fuzzer asks: payconform's verifier and signature base in-process, and every
// adapter of the interop matrix (the Python adapter, the npm libraries configured to the profile) as one child
// process each, started once and fed case after case over the harness protocol (no process per input).
import { readFileSync } from 'node:fs';
import { libraryAnswer } from '../../vectors/adapters/node/answer.js';
import { AdapterProcess } from '../../vectors/harness/adapter-process.js';
import { messageInput } from '../../vectors/harness/load.js';
import { helloMessage } from '../../vectors/harness/run.js';
import type { VectorCase } from '../../vectors/format.js';
import type { DeviationId } from '../../vectors/adapters/deviations.js';
import { KEYS, type FuzzCase } from './generate.js';

/** What an implementation answered: its verify result, or that it cannot say (unsupported, cannot express). */
export type Verdict =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'skip'; readonly why: string }
  | { readonly kind: 'error'; readonly message: string };

export interface Implementation {
  readonly id: string;
  /** Whether its error codes are the profile's (else only ok / not ok is compared). */
  readonly compareCodes: boolean;
  /** The deviations the interop matrix already states for it (interop.json `explained`). */
  readonly stated: ReadonlySet<DeviationId>;
  answer(c: FuzzCase): Promise<Verdict>;
  /** Its `signature-base` answer for a profile-signed case's request and parameters. */
  answerBase(base: NonNullable<FuzzCase['base']>): Promise<Verdict>;
  /** Resolves once it has started (the harness handshake answered), so start-up is not fuzzing time. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface MatrixEntry {
  readonly id: string;
  readonly exec: string;
  readonly compareCodes: boolean;
  readonly explained: Record<string, DeviationId>;
  readonly unsupportedOps?: Record<string, string>;
}

const ROOT = new URL('../../', import.meta.url);
const ANSWER_TIMEOUT_MS = 10_000;
/** How long an adapter may take to start and answer the handshake. */
const STARTUP_TIMEOUT_MS = 60_000;

/** The harness's `input` for a fuzz case: the verifier's registry resolved from keys.json. */
export function verifyInput(c: FuzzCase): Record<string, unknown> {
  const vector = {
    op: 'verify',
    input: { request: c.request, now: c.now, nonceState: c.nonceState, verifier: c.verifier },
  } as unknown as VectorCase;
  return messageInput(KEYS, vector);
}

export const payconform: Implementation = {
  id: 'payconform',
  compareCodes: true,
  stated: new Set(),
  answer: async (c) => ({
    kind: 'result',
    result: (await libraryAnswer('verify', verifyInput(c) as never)) as Record<string, unknown>,
  }),
  answerBase: async (base) => ({
    kind: 'result',
    result: (await libraryAnswer('signature-base', base as never)) as Record<string, unknown>,
  }),
  ready: async () => {},
  close: async () => {},
};

/** One adapter process; answers are read in order, one case at a time, each within ANSWER_TIMEOUT_MS. */
function adapterImplementation(entry: MatrixEntry): Implementation {
  const child = new AdapterProcess(entry.exec, { cwd: new URL('.', ROOT).pathname });
  let next = 0;
  const ask = async (op: string, input: unknown): Promise<Verdict> => {
    const id = `fuzz-${next++}`;
    child.drain();
    if (!child.send({ id, op, input }))
      return { kind: 'error', message: `${entry.id} exited: ${child.stderr()}` };
    const reply = await child.nextLine(ANSWER_TIMEOUT_MS);
    if (reply.kind !== 'answer') return { kind: 'error', message: `${entry.id}: ${reply.kind}` };
    const m = reply.message;
    if (m.result && typeof m.result === 'object')
      return { kind: 'result', result: m.result as Record<string, unknown> };
    if (m.unsupported || m.cannotExpress)
      return { kind: 'skip', why: JSON.stringify(m.cannotExpress ?? m.unsupported) };
    return { kind: 'error', message: `${entry.id}: ${JSON.stringify(m).slice(0, 300)}` };
  };
  return {
    id: entry.id,
    compareCodes: entry.compareCodes,
    stated: new Set(Object.values(entry.explained)),
    answer: (c) => ask('verify', verifyInput(c)),
    answerBase: (base) => ask('signature-base', base),
    async ready() {
      if (!child.send(helloMessage(ANSWER_TIMEOUT_MS)))
        throw new Error(`${entry.id} did not start: ${child.stderr()}`);
      const reply = await child.nextLine(STARTUP_TIMEOUT_MS);
      if (reply.kind !== 'answer') throw new Error(`${entry.id} did not start: ${reply.kind}`);
    },
    close: () => child.stop(),
  };
}

/** Every matrix implementation (interop.json), started once; an op it lacks is answered unsupported (a skip). */
export function startMatrixImplementations(only?: readonly string[]): Implementation[] {
  const config = JSON.parse(
    readFileSync(new URL('vectors/adapters/interop.json', ROOT), 'utf8'),
  ) as { implementations: MatrixEntry[] };
  const all = config.implementations;
  const unknown = (only ?? []).filter((id) => !all.some((e) => e.id === id));
  if (unknown.length > 0)
    throw new RangeError(
      `no implementation ${unknown.join(', ')} (known: ${all.map((e) => e.id).join(', ')})`,
    );
  return all.filter((e) => only === undefined || only.includes(e.id)).map(adapterImplementation);
}

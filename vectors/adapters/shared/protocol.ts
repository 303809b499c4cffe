// The harness protocol loop for Node adapters (vectors/README.md, "The harness"): answers the `hello` handshake,
// routes each case to the adapter's handler for its op, and turns what a handler throws into the protocol's answers.
// Self-contained on purpose: a third-party adapter imports this and its library, never payconform's src/.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** The protocol version these adapters speak. */
export const PROTOCOL_VERSION = 2;

export type Json = Record<string, unknown>;
export type Handler = (input: Json) => Json | Promise<Json>;

export interface Implementation {
  /** The library's package name, as its registry spells it. */
  readonly name: string;
  readonly version: string;
  /** How the adapter configures the library, one line (shown in the interop matrix). */
  readonly configuration?: string;
}

/**
 * Thrown by a handler when the library cannot be configured to do what the case asks (the library implements
 * the op, but not this profile rule). `deviation` names the profile deviation from RFC 9421 / RFC 9530 that the
 * library cannot follow, as listed in vectors/README.md ("Implementer's guide").
 */
export class CannotExpress extends Error {
  constructor(
    readonly deviation: string,
    message: string,
  ) {
    super(message);
    this.name = 'CannotExpress';
  }
}

/** The version of an installed package, read from its package.json (what the matrix reports). */
export function packageVersion(name: string): string {
  const url = new URL(`../../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The answer line for one request line. Never throws: a malformed request gets an `error` answer. */
export async function answer(
  line: string,
  implementation: Implementation,
  handlers: Partial<Record<string, Handler>>,
): Promise<Json> {
  let message: { id?: unknown; op?: unknown; input?: unknown };
  try {
    message = JSON.parse(line) as typeof message;
  } catch (error) {
    return { id: null, error: { message: `request line is not JSON: ${errorText(error)}` } };
  }
  const id = message.id ?? null;
  if (message.op === 'hello') {
    return {
      id,
      result: { protocol: PROTOCOL_VERSION, implementation, ops: Object.keys(handlers) },
    };
  }
  const handler = typeof message.op === 'string' ? handlers[message.op] : undefined;
  if (!handler)
    return {
      id,
      unsupported: true,
      reason: `${implementation.name} has no ${JSON.stringify(message.op)} operation`,
    };
  try {
    const input =
      message.input !== null && typeof message.input === 'object' ? (message.input as Json) : {};
    return { id, result: await handler(input) };
  } catch (error) {
    if (error instanceof CannotExpress)
      return { id, cannotExpress: { deviation: error.deviation, reason: error.message } };
    return { id, error: { message: errorText(error) } };
  }
}

/** Reads request lines from stdin until it closes, writing one answer line each. */
export async function serve(
  implementation: Implementation,
  handlers: Partial<Record<string, Handler>>,
): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    process.stdout.write(`${JSON.stringify(await answer(line, implementation, handlers))}\n`);
  }
}

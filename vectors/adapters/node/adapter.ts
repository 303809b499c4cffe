// The reference adapter: payconform's library behind the harness protocol (`--exec "npx tsx vectors/adapters/node/adapter.ts"`).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { VECTOR_OPS, type VectorOp } from '../../format.js';
import { libraryAnswer } from './answer.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let reply: Record<string, unknown>;
  let message: { id?: unknown; op?: unknown; input?: Record<string, unknown> } = {};
  try {
    message = JSON.parse(line) as typeof message;
    reply =
      message.op === 'hello'
        ? {
            id: message.id,
            result: {
              protocol: 2,
              implementation: {
                name: 'payconform',
                version: PACKAGE_VERSION,
                configuration: 'the reference library (src/) behind the protocol',
              },
              ops: VECTOR_OPS,
            },
          }
        : VECTOR_OPS.includes(message.op as VectorOp)
          ? {
              id: message.id,
              result: await libraryAnswer(message.op as VectorOp, message.input ?? {}),
            }
          : { id: message.id, unsupported: true };
  } catch (error) {
    reply = {
      id: message.id ?? null,
      error: { message: error instanceof Error ? error.message : String(error) },
    };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}

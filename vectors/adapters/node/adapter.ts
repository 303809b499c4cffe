// The reference adapter: payconform's library behind the harness protocol (`--exec "npx tsx vectors/adapters/node/adapter.ts"`).
// The protocol loop is the one every Node adapter uses (shared/protocol.ts); the answers are libraryAnswer's.
import { readFileSync } from 'node:fs';
import { VECTOR_OPS } from '../../format.js';
import { serve, type Handler } from '../shared/protocol.js';
import { libraryAnswer } from './answer.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

await serve(
  {
    name: 'payconform',
    version: PACKAGE_VERSION,
    configuration: 'the reference library (src/) behind the protocol',
  },
  Object.fromEntries(
    VECTOR_OPS.map((op): [string, Handler] => [op, (input) => libraryAnswer(op, input)]),
  ),
);

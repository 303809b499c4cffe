// Generates the payload vectors (vectors/payloads/<kind>.json): valid payloads built from the spec's tables and
// invalid variants, each labelled with the pointers and keywords a validator must report.
// Run: npx tsx vectors/payloads/generate.ts. Case ids are public API: never renumber or rename them.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { payloadKinds, payloadSchemaId, type PayloadKind } from '../../src/schemas/index.js';
import { Cases, type CaseRow, type PayloadVectorCase } from './cases.js';
import { PAYOUT_ROWS, ERROR_ROWS } from './payout-resource-rows.js';
import {
  ACCOUNT_ROWS,
  PAYOUT_CREATE_REQUEST_ROWS,
  PAYOUT_DESTINATION_ROWS,
} from './payout-rows.js';
import { REFUND_REQUEST_ROWS, REFUND_ROWS } from './refund-rows.js';
import { PAYMENT_WEBHOOK_ROWS, PAYOUT_WEBHOOK_ROWS, REFUND_WEBHOOK_ROWS } from './webhook-rows.js';

export type { ExpectedError, PayloadVectorCase } from './cases.js';

export interface PayloadVectorFile {
  readonly kind: PayloadKind;
  readonly schema: string;
  readonly strictSchema: string;
  readonly generatedBy: string;
  readonly cases: readonly PayloadVectorCase[];
}

const GENERATED_BY =
  'vectors/payloads/generate.ts (npx tsx vectors/payloads/generate.ts); do not edit by hand';

/** Each kind's section of the spec and its table of cases (payout-rows.ts, payout-resource-rows.ts, refund-rows.ts, webhook-rows.ts). */
const tables: {
  readonly [K in PayloadKind]: { readonly section: string; readonly rows: readonly CaseRow[] };
} = {
  'payout-create-request': {
    section: 'spec: Endpoints / 1. Create payout / request body',
    rows: PAYOUT_CREATE_REQUEST_ROWS,
  },
  'payout-destination': {
    section: 'spec: Resources and their fields / Payout destination',
    rows: PAYOUT_DESTINATION_ROWS,
  },
  payout: { section: 'spec: Resources and their fields / Payout resource', rows: PAYOUT_ROWS },
  account: { section: 'spec: Resources and their fields / Account object', rows: ACCOUNT_ROWS },
  'refund-request': {
    section: 'spec: Endpoints / 4. Create refund / request body',
    rows: REFUND_REQUEST_ROWS,
  },
  refund: { section: 'spec: Resources and their fields / Refund resource', rows: REFUND_ROWS },
  error: { section: 'spec: Errors', rows: ERROR_ROWS },
  'payment-webhook': {
    section: 'spec: Events / Payment webhook payload',
    rows: PAYMENT_WEBHOOK_ROWS,
  },
  'payout-webhook': { section: 'spec: Events / Payout webhook payload', rows: PAYOUT_WEBHOOK_ROWS },
  'refund-webhook': { section: 'spec: Events / Refund webhook payload', rows: REFUND_WEBHOOK_ROWS },
};

/** Every payload vector file, by kind, as the generator writes it. */
export function buildPayloadVectors(): { readonly [K in PayloadKind]: PayloadVectorFile } {
  const out = {} as Record<PayloadKind, PayloadVectorFile>;
  for (const kind of payloadKinds) {
    out[kind] = {
      kind,
      schema: payloadSchemaId(kind),
      strictSchema: payloadSchemaId(kind, { strict: true }),
      generatedBy: GENERATED_BY,
      cases: new Cases(kind, tables[kind].section).addAll(tables[kind].rows).list,
    };
  }
  return out;
}

/** The file text of one vector file (2-space JSON and a final newline). */
export function payloadVectorText(file: PayloadVectorFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

export const payloadVectorsDir = fileURLToPath(new URL('./', import.meta.url));

/** Writes vectors/payloads/<kind>.json for every kind. */
export function writePayloadVectors(): number {
  let count = 0;
  for (const file of Object.values(buildPayloadVectors())) {
    writeFileSync(`${payloadVectorsDir}${file.kind}.json`, payloadVectorText(file));
    count += file.cases.length;
  }
  return count;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = writePayloadVectors();
  process.stdout.write(
    `wrote ${payloadKinds.length} files, ${count} cases, to vectors/payloads/\n`,
  );
}

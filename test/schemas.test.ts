// Proves the payload schemas compile under ajv strict mode, match the spec's status lists, cannot drift from the
// hand-written TypeScript types, and that violations come back with RFC 6901 pointers and readable messages.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { COP_STATUS_KEYS } from '../conformance/config/config.js';
import { describe, expect, it } from 'vitest';
import accountSchema from '../schemas/account.schema.json' with { type: 'json' };
import commonSchema from '../schemas/common.schema.json' with { type: 'json' };
import errorSchema from '../schemas/error.schema.json' with { type: 'json' };
import paymentWebhookSchema from '../schemas/payment-webhook.schema.json' with { type: 'json' };
import payoutCreateRequestSchema from '../schemas/payout-create-request.schema.json' with { type: 'json' };
import payoutDestinationSchema from '../schemas/payout-destination.schema.json' with { type: 'json' };
import payoutSchema from '../schemas/payout.schema.json' with { type: 'json' };
import payoutWebhookSchema from '../schemas/payout-webhook.schema.json' with { type: 'json' };
import refundRequestSchema from '../schemas/refund-request.schema.json' with { type: 'json' };
import refundSchema from '../schemas/refund.schema.json' with { type: 'json' };
import refundWebhookSchema from '../schemas/refund-webhook.schema.json' with { type: 'json' };
import {
  copStatuses,
  getRegisteredSchema,
  getSchemaValidator,
  parseJsonBytes,
  parseJsonText,
  paymentWebhookStatuses,
  payloadKinds,
  payloadSchemaId,
  payoutStatuses,
  payoutWebhookStatuses,
  refundStatuses,
  registeredSchemaIds,
  schemaRegistry,
  validateAgainst,
  validatePayload,
  validatePayloadText,
  type Account,
  type AccountIdentification,
  type ErrorBody,
  type PayloadKind,
  type PayloadTypes,
  type PaymentRefundData,
  type PaymentRequestDetails,
  type PaymentWebhook,
  type Payout,
  type PayoutCreateRequest,
  type PayoutDestination,
  type PayoutWebhook,
  type PayoutWebhookDestination,
  type Refund,
  type RefundDestination,
  type RefundRequest,
  type RefundRequestDetails,
  type RefundWebhook,
  type RefundWebhookDestination,
} from '../src/schemas/index.js';

const schemasDir = fileURLToPath(new URL('../schemas/', import.meta.url));

// ---- compile-time: the TypeScript types and the schemas list the same properties and the same required ones ----
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type PropsOf<S> = S extends { readonly properties: infer P } ? keyof P : never;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
const sameKeys = <A, B>(ok: Equal<A, B>): Equal<A, B> => ok;

sameKeys<keyof Account, PropsOf<typeof accountSchema>>(true);
sameKeys<keyof PayoutDestination, PropsOf<typeof payoutDestinationSchema>>(true);
sameKeys<keyof PayoutCreateRequest, PropsOf<typeof payoutCreateRequestSchema>>(true);
sameKeys<keyof Payout, PropsOf<typeof payoutSchema>>(true);
sameKeys<keyof RefundRequest, PropsOf<typeof refundRequestSchema>>(true);
sameKeys<keyof Refund, PropsOf<typeof refundSchema>>(true);
sameKeys<keyof RefundRequestDetails, PropsOf<typeof refundSchema.$defs.refundRequestDetails>>(true);
sameKeys<keyof RefundDestination, PropsOf<typeof refundSchema.$defs.refundDestination>>(true);
sameKeys<keyof ErrorBody, PropsOf<typeof errorSchema>>(true);
sameKeys<keyof PaymentWebhook, PropsOf<typeof paymentWebhookSchema>>(true);
sameKeys<keyof PaymentRequestDetails, PropsOf<typeof paymentWebhookSchema.$defs.paymentRequest>>(
  true,
);
sameKeys<keyof PaymentRefundData, PropsOf<typeof paymentWebhookSchema.$defs.paymentRefundData>>(
  true,
);
sameKeys<
  keyof AccountIdentification,
  PropsOf<typeof paymentWebhookSchema.$defs.accountIdentification>
>(true);
sameKeys<keyof PayoutWebhook, PropsOf<typeof payoutWebhookSchema>>(true);
sameKeys<keyof PayoutWebhookDestination, PropsOf<typeof payoutWebhookSchema.$defs.destination>>(
  true,
);
sameKeys<keyof RefundWebhook, PropsOf<typeof refundWebhookSchema>>(true);
sameKeys<keyof RefundWebhookDestination, PropsOf<typeof refundWebhookSchema.$defs.destination>>(
  true,
);

// Typed object literals: a key missing or extra here is a compile error, so each list is exactly RequiredKeys<T>.
const requiredOf: { readonly [K in PayloadKind]: Record<RequiredKeys<PayloadTypes[K]>, true> } = {
  account: { type: true, name: true, accountNumber: true, sortCode: true, iban: true, bic: true },
  'payout-destination': {},
  'payout-create-request': {},
  payout: {
    applicationId: true,
    payoutId: true,
    createdAt: true,
    status: true,
    amount: true,
    reference: true,
    currency: true,
    source: true,
    destination: true,
    tracingId: true,
    copStatus: true,
    statusReason: true,
  },
  'refund-request': {},
  refund: {
    refundPaymentId: true,
    refundedPaymentId: true,
    createdAtUtc: true,
    status: true,
    refundRequestDetails: true,
  },
  error: { statusCode: true, statusName: true, errorMessage: true, traceId: true, source: true },
  'payment-webhook': {
    paymentId: true,
    paymentStatus: true,
    errorDescription: true,
    paymentRequest: true,
    paymentRefundData: true,
    applicationId: true,
    isExternal: true,
  },
  'payout-webhook': {
    eventTimeUtc: true,
    applicationId: true,
    payoutId: true,
    payoutAmount: true,
    payoutCurrency: true,
    payoutReference: true,
    payoutStatus: true,
    payoutStatusDescription: true,
    payoutWebhookDeliveryAttempt: true,
    destination: true,
  },
  'refund-webhook': {
    eventTimeUtc: true,
    applicationId: true,
    refundedPaymentId: true,
    refundedPaymentAmount: true,
    refundId: true,
    refundAmount: true,
    refundCurrency: true,
    refundReference: true,
    refundStatus: true,
    refundStatusDescription: true,
    refundWebhookDeliveryAttempt: true,
    destination: true,
  },
};
const nestedRequiredOf: readonly (readonly [string, readonly string[], readonly string[]])[] = [
  [
    'refund#refundRequestDetails',
    refundSchema.$defs.refundRequestDetails.required,
    Object.keys({
      amount: true,
      currency: true,
      reference: true,
      destination: true,
    } satisfies Record<RequiredKeys<RefundRequestDetails>, true>),
  ],
  [
    'refund#refundDestination',
    refundSchema.$defs.refundDestination.required,
    Object.keys({
      type: true,
      name: true,
      accountNumber: true,
      sortCode: true,
      iban: true,
    } satisfies Record<RequiredKeys<RefundDestination>, true>),
  ],
  [
    'payment-webhook#paymentRequest',
    paymentWebhookSchema.$defs.paymentRequest.required,
    Object.keys({ amount: true, currency: true } satisfies Record<
      RequiredKeys<PaymentRequestDetails>,
      true
    >),
  ],
  [
    'payment-webhook#accountIdentification',
    paymentWebhookSchema.$defs.accountIdentification.required,
    Object.keys({ type: true, number: true } satisfies Record<
      RequiredKeys<AccountIdentification>,
      true
    >),
  ],
  [
    'payout-webhook#destination',
    payoutWebhookSchema.$defs.destination.required,
    Object.keys({ type: true, name: true, accountNumber: true, sortCode: true } satisfies Record<
      RequiredKeys<PayoutWebhookDestination>,
      true
    >),
  ],
  [
    'refund-webhook#destination',
    refundWebhookSchema.$defs.destination.required,
    Object.keys({ type: true, accountNumber: true, sortCode: true, name: true } satisfies Record<
      RequiredKeys<RefundWebhookDestination>,
      true
    >),
  ],
];

// ---- full samples (every property present), typed by the hand-written interfaces ----
const appId = '6f1c2b3a-4d5e-4f60-8a71-92b3c4d5e6f7';
const scan: Account = {
  type: 'SCAN',
  name: 'Acme Ltd',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
  bic: null,
};
const samples: { readonly [K in PayloadKind]: Required<PayloadTypes[K]> } = {
  account: scan,
  'payout-destination': {
    destinationType: 'toAccount',
    accountType: 'SCAN',
    holderName: 'Jane Doe',
    accountNumber: '87654321',
    sortCode: '200000',
    iban: null,
  },
  'payout-create-request': {
    applicationId: appId,
    payInAccountSelector: 'main',
    amount: 10.5,
    reference: 'INV-1',
    destination: {
      destinationType: 'toAccount',
      accountType: 'SCAN',
      holderName: 'Jane Doe',
      accountNumber: '87654321',
      sortCode: '200000',
      iban: null,
    },
    doNotCommitOnCoPMismatch: true,
  },
  payout: {
    applicationId: appId,
    payoutId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    createdAt: '2024-05-01T12:30:45.123Z',
    status: 'AWAITING_COMMIT',
    amount: 10.5,
    reference: 'INV-1',
    currency: 'GBP',
    source: scan,
    destination: { ...scan, name: 'Jane Doe' },
    tracingId: '9f86d081884c7d65',
    copStatus: 'PARTIAL_MATCH',
    statusReason: null,
  },
  'refund-request': { paymentId: '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718', amount: '5.25' },
  refund: {
    refundPaymentId: '2c3d4e5f-6071-4b82-9ca3-d4e5f6071829',
    refundedPaymentId: '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718',
    createdAtUtc: '2024-05-01T12:30:45.1234567',
    status: 'IN_PROGRESS',
    refundRequestDetails: {
      amount: 5.25,
      currency: 'GBP',
      reference: 'REF-1',
      destination: {
        type: 'SCAN',
        name: 'Payer',
        accountNumber: '11223344',
        sortCode: '300000',
        iban: null,
      },
    },
  },
  error: {
    statusCode: 422,
    statusName: 'UNPROCESSABLE_ENTITY',
    errorMessage: 'Payment status is AWAITING_AUTHORIZATION',
    traceId: 'abc',
    source: 'MERCHANT',
  },
  'payment-webhook': {
    paymentId: '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718',
    merchantPaymentId: 'order-1',
    paymentStatus: 'SETTLED',
    errorDescription: null,
    paymentRequest: { amount: 20, currency: 'GBP', reference: 'ORDER-1' },
    paymentRefundData: {
      accountHolderName: 'Payer',
      accountIdentifications: [
        { type: 'ACCOUNT_NUMBER', number: '11223344' },
        { type: 'SORT_CODE', number: '300000' },
      ],
    },
    paymentMetadata: { cart: 'x' },
    applicationId: appId,
    isExternal: false,
  },
  'payout-webhook': {
    eventTimeUtc: '2024-05-01T12:31:00.000Z',
    applicationId: appId,
    payoutId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    payoutAmount: 10.5,
    payoutCurrency: 'GBP',
    payoutReference: 'INV-1',
    payoutStatus: 'PROCESSED',
    payoutStatusDescription: '',
    payoutWebhookDeliveryAttempt: 0,
    destination: { type: 'SCAN', name: 'Jane Doe', accountNumber: '87654321', sortCode: '200000' },
  },
  'refund-webhook': {
    eventTimeUtc: '2024-05-01T12:31:00.000Z',
    applicationId: appId,
    refundedPaymentId: '1b2c3d4e-5f60-4a71-8b92-c3d4e5f60718',
    refundedMerchantPaymentId: 'order-1',
    refundedPaymentAmount: 20,
    refundId: '2c3d4e5f-6071-4b82-9ca3-d4e5f6071829',
    refundAmount: 5.25,
    refundCurrency: 'GBP',
    refundReference: 'REF-1',
    refundStatus: 'IN_PROGRESS',
    refundStatusDescription: '',
    refundWebhookDeliveryAttempt: 1,
    destination: { type: 'SCAN', accountNumber: '11223344', sortCode: '300000', name: 'Payer' },
  },
};

function schemaFiles(): string[] {
  return readdirSync(schemasDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort();
}

describe('schema files (JSON Schema 2020-12, strict mode)', () => {
  it('every schemas/*.schema.json file is registered, and every registered schema compiles under strict mode', () => {
    const ids = new Set(registeredSchemaIds());
    expect(ids.size).toBe(schemaRegistry.length);
    expect(ids.size).toBe(schemaFiles().length);
    for (const file of schemaFiles()) {
      const doc = JSON.parse(readFileSync(`${schemasDir}${file}`, 'utf8')) as Record<
        string,
        unknown
      >;
      expect(ids.has(String(doc['$id'])), file).toBe(true);
    }
    // Each compiles only when first asked for (the validator is lazy): ask for every one, so none breaks strict mode.
    for (const id of ids) expect(() => getSchemaValidator(id), id).not.toThrow();
  });

  it('every registered schema is valid under the 2020-12 meta-schema (the validator leaves that to this test)', () => {
    const meta = new Ajv2020({ allowUnionTypes: true });
    for (const schema of schemaRegistry)
      expect(meta.validateSchema(schema), `${schema.$id}: ${meta.errorsText()}`).toBe(true);
    // The check can fail: a keyword with a value of the wrong type.
    expect(meta.validateSchema({ $id: 'https://example.test/bad', minLength: 'three' })).toBe(
      false,
    );
  });

  it('payload schemas: $schema 2020-12, $id https://payconform.dev/schemas/<file>, a title and a description citing the spec', () => {
    const own = schemaFiles().filter((f) =>
      /^(common|account|payout|payout-destination|payout-create-request|refund|refund-request|error|payment-webhook|payout-webhook|refund-webhook)(\.strict)?\.schema\.json$/.test(
        f,
      ),
    );
    expect(own).toHaveLength(21);
    for (const file of own) {
      const doc = JSON.parse(readFileSync(`${schemasDir}${file}`, 'utf8')) as Record<
        string,
        unknown
      >;
      expect(doc['$schema'], file).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc['$id'], file).toBe(`https://payconform.dev/schemas/${file}`);
      expect(typeof doc['title'], file).toBe('string');
      expect(String(doc['description']), file).toMatch(/spec|Spec|permissive/);
    }
  });

  it('every payload kind has a permissive and a strict schema', () => {
    for (const kind of payloadKinds) {
      expect(getRegisteredSchema(payloadSchemaId(kind))?.['$id']).toBe(
        `https://payconform.dev/schemas/${kind}.schema.json`,
      );
      expect(getRegisteredSchema(payloadSchemaId(kind, { strict: true }))).toBeDefined();
    }
  });

  it('getSchemaValidator rejects an unknown $id with a TypeError; validatePayload an unknown kind', () => {
    expect(() => getSchemaValidator('https://payconform.dev/schemas/nope.schema.json')).toThrow(
      TypeError,
    );
    expect(() => validatePayload('nope' as PayloadKind, {})).toThrow(TypeError);
  });
});

describe('spec: States and transitions: status lists equal the schema enums', () => {
  const defs = commonSchema.$defs;
  it.each([
    ['payoutStatus', payoutStatuses],
    ['payoutWebhookStatus', payoutWebhookStatuses],
    ['refundStatus', refundStatuses],
    ['paymentWebhookStatus', paymentWebhookStatuses],
  ] as const)('%s', (name, list) => {
    expect([...defs[name].enum].sort()).toEqual([...list].sort());
  });
  it('copStatus: the six values and null', () => {
    expect(defs.copStatus.enum).toEqual([...copStatuses, null]);
  });
  it("the audit config's copDestinations keys are the copStatus values and null, from the one list", () => {
    expect([...COP_STATUS_KEYS]).toEqual([...copStatuses, 'null']);
  });
  it('the payout webhook list is the payout list without AWAITING_COMMIT', () => {
    expect([...payoutWebhookStatuses, 'AWAITING_COMMIT'].sort()).toEqual(
      [...payoutStatuses].sort(),
    );
  });
});

describe('TypeScript types cannot drift from the schemas', () => {
  it.each(payloadKinds)('%s: required keys of the type equal the schema "required"', (kind) => {
    const schema = getRegisteredSchema(payloadSchemaId(kind)) as { required?: string[] };
    expect([...(schema.required ?? [])].sort()).toEqual(Object.keys(requiredOf[kind]).sort());
  });
  it.each(nestedRequiredOf)(
    '%s: required keys of the type equal the schema "required"',
    (_name, required, keys) => {
      expect([...required].sort()).toEqual([...keys].sort());
    },
  );
  it.each(payloadKinds)(
    '%s: a full sample of the type validates (permissive and strict); its keys are the schema properties',
    (kind) => {
      const sample = samples[kind];
      expect(validatePayload(kind, sample)).toEqual({ valid: true });
      expect(validatePayload(kind, sample, { strict: true })).toEqual({ valid: true });
      const schema = getRegisteredSchema(payloadSchemaId(kind)) as unknown as {
        properties: Record<string, unknown>;
      };
      expect(Object.keys(sample).sort()).toEqual(Object.keys(schema.properties).sort());
    },
  );
  it.each(payloadKinds)(
    '%s: removing each required property is reported at that property',
    (kind) => {
      for (const key of Object.keys(requiredOf[kind])) {
        const copy: Record<string, unknown> = { ...samples[kind] };
        delete copy[key];
        const result = validatePayload(kind, copy);
        expect(result.valid).toBe(false);
        if (!result.valid)
          expect(result.errors).toContainEqual(
            expect.objectContaining({ pointer: `/${key}`, keyword: 'required' }),
          );
      }
    },
  );
});

describe('violations: pointers, keywords, schema ids, messages', () => {
  it('a wrong type inside a nested object names the nested pointer and the schema that holds the rule', () => {
    const result = validatePayload('payout', { ...samples.payout, source: { ...scan, iban: 42 } });
    expect(result).toEqual({
      valid: false,
      errors: [
        {
          pointer: '/source/iban',
          keyword: 'type',
          message: 'must be a string or null, got number 42',
          schemaId: 'https://payconform.dev/schemas/common.schema.json',
          schemaLocation:
            'https://payconform.dev/schemas/common.schema.json#/$defs/nullableString/type',
        },
      ],
    });
  });

  it('unknown properties: accepted by the permissive schemas, reported by the strict ones with an escaped pointer', () => {
    const value = { ...samples.payout, 'a/b~c': 1 };
    expect(validatePayload('payout', value).valid).toBe(true);
    const strict = validatePayload('payout', value, { strict: true });
    expect(strict.valid).toBe(false);
    if (!strict.valid) {
      expect(strict.errors).toEqual([
        expect.objectContaining({
          pointer: '/a~1b~0c',
          keyword: 'unevaluatedProperties',
          message: 'unexpected property "a/b~c"',
        }),
      ]);
    }
  });

  it('webhooks accept unknown properties at every level (spec: receivers must ignore unknown properties)', () => {
    const hook = {
      ...samples['payment-webhook'],
      newField: 1,
      paymentRequest: { ...samples['payment-webhook'].paymentRequest, x: 1 },
    };
    expect(validatePayload('payment-webhook', hook).valid).toBe(true);
    const strict = validatePayload('payment-webhook', hook, { strict: true });
    expect(strict.valid ? [] : strict.errors.map((e) => e.pointer).sort()).toEqual([
      '/newField',
      '/paymentRequest/x',
    ]);
  });

  it('a timestamp of the wrong form is reported once (pattern), not twice (pattern and format)', () => {
    const result = validatePayload('payout', {
      ...samples.payout,
      createdAt: '2024-05-01T12:30:45Z',
    });
    expect(result.valid ? [] : result.errors.map((e) => [e.pointer, e.keyword])).toEqual([
      ['/createdAt', 'pattern'],
    ]);
  });

  it('the root of a non-object payload is the pointer ""', () => {
    const result = validateAgainst(payloadSchemaId('payout'), [1, 2]);
    expect(result.valid ? [] : result.errors.map((e) => [e.pointer, e.keyword])).toEqual([
      ['', 'type'],
    ]);
  });
});

describe('validatePayloadText: unreadable JSON is reported with its offset', () => {
  it.each([
    ['{"a":1,}', 7],
    ['{"a" 1}', 5],
    ['abc', 0],
    ['{"a":', 5],
    ['', 0],
    ['[1,2', 4],
    ['{"a":1} x', 8],
    ['{"a":tru}', 5],
    ['{"a":"\\x"}', 6],
    ['{"a":01}', 6],
  ])('%j → offset %i', (text, offset) => {
    const result = validatePayloadText('payout', text);
    expect(result.valid).toBe(false);
    expect(result.parseError?.offset).toBe(offset);
    expect(result.parseError?.message).toContain(`offset ${offset}`);
    if (!result.valid) expect(result.errors[0]?.keyword).toBe('json');
  });

  it('readable JSON is validated as usual', () => {
    expect(validatePayloadText('payout', JSON.stringify(samples.payout))).toEqual({ valid: true });
    const bad = validatePayloadText('payout', '{}');
    expect(bad.parseError).toBeUndefined();
    expect(bad.valid ? 0 : bad.errors.length).toBe(12);
  });

  it('invalid UTF-8 bytes are unreadable, a BOM is dropped', () => {
    expect(parseJsonBytes(Uint8Array.from([0x7b, 0xff, 0x7d]))).toMatchObject({
      ok: false,
      offset: 1,
    });
    expect(parseJsonBytes(new TextEncoder().encode('\uFEFF{"a":1}'))).toEqual({
      ok: true,
      value: { a: 1 },
    });
  });

  it('the invalid-UTF-8 offset is where the valid text ends, multi-byte characters before it included', () => {
    const pre = [...new TextEncoder().encode('{"a":"')]; // 6 bytes
    const euro = [0xe2, 0x82, 0xac];
    expect(
      parseJsonBytes(Uint8Array.from([...pre, ...euro, ...euro, 0xff, 0x22, 0x7d])),
    ).toMatchObject({ ok: false, offset: 12 });
    expect(parseJsonBytes(Uint8Array.from([...pre, 0xe2, 0x41, 0x22, 0x7d]))).toMatchObject({
      ok: false,
      offset: 6,
    }); // ill-formed sequence starts at 6
    expect(parseJsonBytes(Uint8Array.from([...pre, 0xe2, 0x82]))).toMatchObject({
      ok: false,
      offset: 6,
    }); // truncated at the end
  });

  it('property: the offset equals the length of the longest prefix that decodes (naive oracle)', () => {
    const decodes = (b: Uint8Array): boolean => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(b);
        return true;
      } catch {
        return false;
      }
    };
    const bytes = fc.array(
      fc.oneof(
        fc.integer({ min: 0x20, max: 0x7e }),
        fc.constantFrom(0xe2, 0x82, 0xac, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0xc0),
      ),
      { maxLength: 24 },
    );
    fc.assert(
      fc.property(bytes, (list) => {
        const b = Uint8Array.from(list);
        fc.pre(!decodes(b));
        let longest = 0;
        for (let length = 0; length <= b.length; length++)
          if (decodes(b.subarray(0, length))) longest = length;
        const result = parseJsonBytes(b);
        return result.ok === false && result.offset === longest;
      }),
      { numRuns: 300 },
    );
  });

  it('property: the scanner finds an error exactly when JSON.parse fails', () => {
    const jsonish = fc.stringMatching(/^[\s{}[\]",:0-9.eE+\-a-z\\]{0,24}$/);
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', '0', 'x', '\\'))
      .map(
        ([text, at, insert]) =>
          text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)),
      );
    fc.assert(
      fc.property(fc.oneof(jsonish, mutated, fc.json()), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const result = parseJsonText(text);
        expect(result.ok).toBe(parses);
        if (!result.ok) {
          expect(result.offset).toBeGreaterThanOrEqual(0);
          expect(result.offset).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('hostile input: very deep nesting gives a result, not an exception', () => {
    const deep = '['.repeat(200_000);
    const result = validatePayloadText('payout', deep);
    expect(result.valid).toBe(false);
    expect(result.parseError?.offset).toBe(200_000);
    const closed = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    expect(validatePayloadText('payment-webhook', closed).valid).toBe(false);
  });
});

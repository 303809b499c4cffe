// The one list of JSON Schemas loaded into payconform's shared ajv instance. To add a schema of your own format,
// put it in schemas/<name>.schema.json (with a stable `$id`) and add one import and one array entry below.
// Why static JSON imports: src/ stays free of file-system access, and `import ... with { type: 'json' }` works the
// same under tsc (NodeNext), tsx (the CLI), vitest and plain Node 20.10+.
import accountSchema from '../../schemas/account.schema.json' with { type: 'json' };
import accountStrictSchema from '../../schemas/account.strict.schema.json' with { type: 'json' };
import commonSchema from '../../schemas/common.schema.json' with { type: 'json' };
import errorSchema from '../../schemas/error.schema.json' with { type: 'json' };
import errorStrictSchema from '../../schemas/error.strict.schema.json' with { type: 'json' };
import paymentWebhookSchema from '../../schemas/payment-webhook.schema.json' with { type: 'json' };
import paymentWebhookStrictSchema from '../../schemas/payment-webhook.strict.schema.json' with { type: 'json' };
import payoutCreateRequestSchema from '../../schemas/payout-create-request.schema.json' with { type: 'json' };
import payoutCreateRequestStrictSchema from '../../schemas/payout-create-request.strict.schema.json' with { type: 'json' };
import payoutDestinationSchema from '../../schemas/payout-destination.schema.json' with { type: 'json' };
import payoutDestinationStrictSchema from '../../schemas/payout-destination.strict.schema.json' with { type: 'json' };
import payoutSchema from '../../schemas/payout.schema.json' with { type: 'json' };
import payoutStrictSchema from '../../schemas/payout.strict.schema.json' with { type: 'json' };
import payoutWebhookSchema from '../../schemas/payout-webhook.schema.json' with { type: 'json' };
import payoutWebhookStrictSchema from '../../schemas/payout-webhook.strict.schema.json' with { type: 'json' };
import refundSchema from '../../schemas/refund.schema.json' with { type: 'json' };
import refundStrictSchema from '../../schemas/refund.strict.schema.json' with { type: 'json' };
import refundRequestSchema from '../../schemas/refund-request.schema.json' with { type: 'json' };
import refundRequestStrictSchema from '../../schemas/refund-request.strict.schema.json' with { type: 'json' };
import refundWebhookSchema from '../../schemas/refund-webhook.schema.json' with { type: 'json' };
import refundWebhookStrictSchema from '../../schemas/refund-webhook.strict.schema.json' with { type: 'json' };
import referenceServiceConfigSchema from '../../schemas/reference-service-config.schema.json' with { type: 'json' };
import vectorsSchema from '../../schemas/vectors.schema.json' with { type: 'json' };
import payloadVectorsSchema from '../../schemas/payload-vectors.schema.json' with { type: 'json' };
import conformanceConfigSchema from '../../schemas/conformance-config.schema.json' with { type: 'json' };
import conformanceReportSchema from '../../schemas/conformance-report.schema.json' with { type: 'json' };
import baselineSchema from '../../schemas/baseline.schema.json' with { type: 'json' };
import requestSchema from '../../schemas/request.schema.json' with { type: 'json' };
import stateHookSchema from '../../schemas/state-hook.schema.json' with { type: 'json' };
import sdkAdapterConfigureSchema from '../../schemas/sdk-adapter-configure.schema.json' with { type: 'json' };
import sdkAdapterConfiguredSchema from '../../schemas/sdk-adapter-configured.schema.json' with { type: 'json' };
import sdkAdapterOperationSchema from '../../schemas/sdk-adapter-operation.schema.json' with { type: 'json' };
import sdkAdapterAnswerSchema from '../../schemas/sdk-adapter-answer.schema.json' with { type: 'json' };

/** A JSON Schema document with the `$id` every registered schema must carry. */
export interface RegisteredSchema {
  readonly $id: string;
  readonly [keyword: string]: unknown;
}

/** Every schema of the shared registry, in no particular order (references resolve by `$id`). */
export const schemaRegistry: readonly RegisteredSchema[] = [
  commonSchema,
  accountSchema,
  accountStrictSchema,
  payoutDestinationSchema,
  payoutDestinationStrictSchema,
  payoutCreateRequestSchema,
  payoutCreateRequestStrictSchema,
  payoutSchema,
  payoutStrictSchema,
  refundRequestSchema,
  refundRequestStrictSchema,
  refundSchema,
  refundStrictSchema,
  errorSchema,
  errorStrictSchema,
  paymentWebhookSchema,
  paymentWebhookStrictSchema,
  payoutWebhookSchema,
  payoutWebhookStrictSchema,
  refundWebhookSchema,
  refundWebhookStrictSchema,
  referenceServiceConfigSchema,
  vectorsSchema,
  payloadVectorsSchema,
  conformanceConfigSchema,
  conformanceReportSchema,
  baselineSchema,
  requestSchema,
  stateHookSchema,
  sdkAdapterConfigureSchema,
  sdkAdapterConfiguredSchema,
  sdkAdapterOperationSchema,
  sdkAdapterAnswerSchema,
  // Other helpers: add your format schemas here (vector files, conformance config, conformance report).
];

// The `serve --config FILE` format (schemas/reference-service-config.schema.json) → service options. Pure: the CLI reads files.
import { applicationSecretProblem } from '../src/profile/application-secret.js';
import { getSchemaValidator, parseJsonText } from '../src/schemas/index.js';
import type { ApplicationConfig } from './options.js';
import type { RetryPolicy, WebhookKind } from './webhook-delivery.js';

export const CONFIG_SCHEMA_ID =
  'https://payconform.dev/schemas/reference-service-config.schema.json';

export interface ServiceConfigFile {
  readonly host?: string;
  readonly port?: number;
  readonly applications?: ReadonlyArray<{
    readonly applicationId: string;
    readonly applicationSecret?: string;
    readonly applicationSecretEnv?: string;
    readonly keyId: string;
    readonly publicKey: string;
    readonly merchantId: string;
    readonly cop?: boolean;
    readonly payInAccountSelector?: string;
  }>;
  readonly webhookUrls?: Partial<Record<WebhookKind, string>>;
  readonly signingKeyFile?: string;
  readonly lifecycleMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly requireSignatureAll?: boolean;
  readonly maxBodyBytes?: number;
}

export class ServiceConfigError extends Error {
  override name = 'ServiceConfigError';
}

/** Parses and validates the config text; secrets named by applicationSecretEnv are read from `env`. */
export function parseServiceConfig(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly config: ServiceConfigFile; readonly applications: readonly ApplicationConfig[] } {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new ServiceConfigError(parsed.message);
  const result = getSchemaValidator(CONFIG_SCHEMA_ID)(parsed.value);
  if (!result.valid) {
    throw new ServiceConfigError(
      result.errors
        .slice(0, 5)
        .map((e) => `${e.pointer || '(root)'}: ${e.message}`)
        .join('; '),
    );
  }
  const config = parsed.value as ServiceConfigFile;
  const applications = (config.applications ?? []).map((a, i): ApplicationConfig => {
    const secret =
      a.applicationSecret ??
      (a.applicationSecretEnv !== undefined ? env[a.applicationSecretEnv] : undefined);
    if (secret === undefined || secret === '') {
      throw new ServiceConfigError(
        `/applications/${i}: environment variable ${a.applicationSecretEnv ?? '?'} (applicationSecretEnv) is not set`,
      );
    }
    const problem = applicationSecretProblem(secret);
    if (problem !== undefined) {
      throw new ServiceConfigError(
        `/applications/${i}: the application secret (${a.applicationSecret !== undefined ? 'applicationSecret' : `environment variable ${a.applicationSecretEnv}`}) ${problem}`,
      );
    }
    return {
      applicationId: a.applicationId,
      applicationSecret: secret,
      keyId: a.keyId,
      publicKey: a.publicKey,
      merchantId: a.merchantId,
      ...(a.cop !== undefined ? { cop: a.cop } : {}),
      ...(a.payInAccountSelector !== undefined
        ? { payInAccountSelector: a.payInAccountSelector }
        : {}),
    };
  });
  return { config, applications };
}

// `payconform audit server --target`: the audit context for a service elsewhere (its credentials, its trusted CA,
// the runner's webhook listener, a first probe).
import { UsageError } from '../io.js';
import { parseEd25519PrivateKey } from '../../src/keys/index.js';
import { endpointSpecs } from '../../conformance/client-audit/endpoints.js';
import {
  availableFields,
  statesNoSandbox,
  type ConformanceConfig,
} from '../../conformance/config/config.js';
import { sendRequest } from '../../conformance/http/http-client.js';
import { withTolerance } from '../../conformance/checks/server/waits.js';
import { closeStateHook } from '../../conformance/state-hook/index.js';
import { createRedactor, type Redactor } from '../../conformance/report/redact.js';
import {
  startWebhookListener,
  type WebhookListener,
} from '../../conformance/http/webhook-listener.js';
import type {
  AuditCredentials,
  ServerAuditContext,
} from '../../conformance/checks/server/index.js';
import type { AuditTarget } from './audit-server-target.js';

/** The context for a target given by URL: credentials from the environment, test data from the config. */
export async function prepareExternalTarget(
  target: string,
  config: ConformanceConfig,
  requestTimeoutMs: number,
  tls: { readonly tlsCa?: string } = {},
): Promise<AuditTarget> {
  const secret = config.applicationSecret?.reveal();
  const keyText = config.privateKey?.reveal();
  const redactor = createRedactor({ applicationSecret: secret, privateKey: keyText });
  const credentials = signingCredentials(config, secret, keyText, redactor);
  const listener = await startConfiguredListener(config);
  const fields = availableFields(config);
  const webhookWaitMs = requestTimeoutMs;
  const retry = config.webhookRetry;
  const redelivery = {
    waitMs: retry?.withinMs ?? retry?.waitMs ?? webhookWaitMs,
    stated: retry?.withinMs !== undefined,
  };
  const context: ServerAuditContext = {
    baseUrl: target.replace(/\/+$/, ''),
    ...(credentials ? { credentials } : {}),
    ...(config.applicationId !== undefined ? { applicationId: config.applicationId } : {}),
    ...(secret !== undefined ? { applicationSecret: secret } : {}),
    ...(config.merchantId !== undefined ? { merchantId: config.merchantId } : {}),
    ...(config.payInAccountSelector !== undefined
      ? { payInAccountSelector: config.payInAccountSelector }
      : {}),
    copDestinations: config.copDestinations,
    payments: config.payments,
    ...(listener ? { webhooks: listener } : {}),
    requestTimeoutMs,
    ...(tls.tlsCa !== undefined ? { tlsCa: tls.tlsCa } : {}),
    webhookWaitMs,
    quietWaitMs: Math.min(3_000, requestTimeoutMs),
    redelivery,
    ...(config.lifecycle !== undefined ? { lifecycle: config.lifecycle } : {}),
    sandbox: config.sandbox,
    ...(config.stateHook !== undefined ? { stateHook: config.stateHook } : {}),
    // "sandbox": false stated in the config: the target lacks payconform's /sandbox/, so what needs it does not apply.
    sandboxAbsent: statesNoSandbox(config),
    redactor,
  };
  return {
    context,
    label: target,
    isAvailable: (need) =>
      need === 'webhookListen'
        ? listener !== undefined
        : need === 'privateKey'
          ? credentials !== undefined
          : fields.has(need),
    checkTimeoutMs: externalCheckTimeoutMs(
      requestTimeoutMs,
      webhookWaitMs,
      redelivery.waitMs,
      config,
    ),
    close: async () => {
      // A hook command that stays ("lines": true) is stopped with the audit (docs/state-hook.md).
      await Promise.all([listener?.close(), closeStateHook(config.stateHook)]);
    },
  };
}

/**
 * A check's time limit against a target given by URL: room for the longest waits, a straggler wait (3x the request
 * timeout), a lifecycle step, and two redeliveries after the first webhook.
 */
function externalCheckTimeoutMs(
  requestTimeoutMs: number,
  webhookWaitMs: number,
  redeliveryWaitMs: number,
  config: ConformanceConfig,
): number {
  return (
    3 * requestTimeoutMs +
    2 * webhookWaitMs +
    2 * withTolerance(redeliveryWaitMs) +
    withTolerance(config.lifecycle?.withinMs ?? 0) +
    5_000
  );
}

/**
 * The credentials the signing checks use: undefined unless the private key, application id, key id and secret are
 * all given. A private key that does not parse is a usage error (its text masked).
 */
function signingCredentials(
  config: ConformanceConfig,
  secret: string | undefined,
  keyText: string | undefined,
  redactor: Redactor,
): AuditCredentials | undefined {
  if (keyText === undefined) return undefined;
  let privateKey;
  try {
    privateKey = parseEd25519PrivateKey(keyText.trim());
  } catch (error) {
    throw new UsageError(
      `PAYCONFORM_PRIVATE_KEY is not a usable Ed25519 key (base64 seed or PEM): ${redactor.redactText(error instanceof Error ? error.message : String(error))}`,
    );
  }
  if (config.applicationId === undefined || config.keyId === undefined || secret === undefined)
    return undefined;
  return {
    applicationId: config.applicationId,
    applicationSecret: secret,
    keyId: config.keyId,
    privateKey,
  };
}

/** The webhook listener the config's "webhookListen" asks for (none without it); a usage error when it cannot listen. */
async function startConfiguredListener(
  config: ConformanceConfig,
): Promise<WebhookListener | undefined> {
  if (config.webhookListen === undefined) return undefined;
  try {
    return await startWebhookListener({
      host: config.webhookListen.host,
      port: config.webhookListen.port,
    });
  } catch (error) {
    throw new UsageError(
      `cannot listen for webhooks on ${config.webhookListen.host}:${config.webhookListen.port}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** GET the public-key endpoint with a short timeout: any HTTP answer means reachable. */
export async function probe(
  target: string,
  timeoutMs: number,
  ca: string | undefined,
): Promise<string | undefined> {
  const ex = await sendRequest(
    {
      method: 'GET',
      url: `${target.replace(/\/+$/, '')}${endpointSpecs['public-key'].path}`,
      headers: [['accept', '*/*']],
    },
    { timeoutMs, ...(ca !== undefined ? { ca } : {}) },
  );
  return ex.response === undefined
    ? `${ex.error?.code ?? 'NETWORK_ERROR'}: ${ex.error?.message ?? 'no response'}`
    : undefined;
}

// Applications and payments that exist at start: generated development credentials, and seeded payments to refund.
import { randomBytes, randomUUID } from 'node:crypto';
import { generateEd25519PrivateKey, parseEd25519PublicKey } from '../src/keys/ed25519-keys.js';
import { applicationSecretProblem } from '../src/profile/application-secret.js';
import type { ApplicationConfig, SeededPayments } from './options.js';
import {
  type Application,
  type ApplicationCredentials,
  type Payment,
  type PaymentStatus,
  type ServiceState,
} from './state.js';
import type { StateStore } from './state-store.js';

/** A fresh development application with its private key (printed by `serve`, marked development only). */
export function generateDevelopmentApplication(): ApplicationConfig {
  const privateKey = generateEd25519PrivateKey();
  return {
    applicationId: randomUUID(),
    applicationSecret: randomBytes(24).toString('base64url'),
    keyId: `dev-${randomBytes(6).toString('hex')}`,
    publicKey: privateKey.publicKey,
    privateKey,
    merchantId: randomUUID(),
    cop: true,
  };
}

/** Registers an application; returns the credentials a client uses. Throws KeyFormatError for an unusable key. */
export function registerApplication(
  state: ServiceState,
  config: ApplicationConfig,
  index: number,
): ApplicationCredentials {
  const problem = applicationSecretProblem(config.applicationSecret);
  if (problem !== undefined)
    throw new TypeError(
      `application ${JSON.stringify(config.applicationId)}: the application secret ${problem}`,
    );
  const publicKey =
    typeof config.publicKey === 'string'
      ? parseEd25519PublicKey(config.publicKey)
      : config.publicKey;
  const selector =
    config.payInAccountSelector ?? `VA-${config.applicationId.slice(0, 8).toUpperCase()}`;
  const existing = state.applications.get(config.applicationId);
  if (existing !== undefined) {
    // A second key for the same application (config files may list one entry per key).
    (existing.publicKeys as Map<string, typeof publicKey>).set(config.keyId, publicKey);
  } else {
    const app: Application = {
      applicationId: config.applicationId,
      applicationSecret: config.applicationSecret,
      merchantId: config.merchantId,
      publicKeys: new Map([[config.keyId, publicKey]]),
      cop: config.cop ?? true,
      virtualAccount: {
        id: selector,
        alias: 'main',
        name: 'Payconform Merchant Ltd',
        accountNumber: String(40_000_000 + index).padStart(8, '0'),
        sortCode: '040075',
        iban: null,
      },
    };
    state.applications.set(app.applicationId, app);
  }
  return {
    applicationId: config.applicationId,
    applicationSecret: config.applicationSecret,
    keyId: config.keyId,
    publicKey,
    ...(config.privateKey !== undefined ? { privateKey: config.privateKey } : {}),
    merchantId: config.merchantId,
    cop: config.cop ?? true,
    payInAccountSelector: state.applications.get(config.applicationId)!.virtualAccount.id,
  };
}

const SETTLED_AMOUNTS = ['100.00', '250.50', '75.25', '500.00', '42.10', '1000.00'];
const UNSETTLED: readonly PaymentStatus[] = ['AWAITING_AUTHORIZATION', 'COMPLETED', 'FAILED'];

/**
 * Seeds settled and unsettled payments for one application (no webhooks: they happened before start), once per
 * store: instances sharing a store (Redis) get the payments the first one created.
 */
export function seedPayments(
  store: StateStore,
  applicationId: string,
  now: number,
): Promise<SeededPayments> {
  return store.seedOnce(`payments:${applicationId}`, () =>
    createSeedPayments(store, applicationId, now),
  );
}

async function createSeedPayments(
  store: StateStore,
  applicationId: string,
  now: number,
): Promise<SeededPayments> {
  const make = async (amount: string, status: PaymentStatus, n: number): Promise<Payment> => {
    const payment: Payment = {
      paymentId: randomUUID(),
      applicationId,
      merchantPaymentId: `seed-${n + 1}`,
      status,
      errorDescription: status === 'FAILED' ? 'payer bank rejected the payment' : null,
      amount,
      currency: 'GBP',
      reference: await store.newPaymentReference(),
      payer: {
        name: `Seed Payer ${n + 1}`,
        accountNumber: String(20_000_000 + n),
        sortCode: '200000',
        iban: null,
      },
      isExternal: false,
      createdAt: now,
    };
    await store.addPayment(payment);
    return payment;
  };
  const settled = await Promise.all(SETTLED_AMOUNTS.map((amount, i) => make(amount, 'SETTLED', i)));
  const unsettled = await Promise.all(
    UNSETTLED.map((status, i) => make('20.00', status, SETTLED_AMOUNTS.length + i)),
  );
  return {
    settled: settled.map((p) => ({ paymentId: p.paymentId, amount: p.amount })),
    unsettled: unsettled.map((p) => ({ paymentId: p.paymentId, status: p.status })),
  };
}

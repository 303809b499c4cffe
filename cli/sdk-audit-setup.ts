// What `audit client --adapter` needs besides the explorer: an application for the sequences (generated: the secret
// and private key go to the adapter only through its environment), the reference service started for each sequence
// with the drawn personality, and the adapter process (the vectors harness's, which speaks the same JSON lines).
import { randomBytes, randomUUID } from 'node:crypto';
import { exportEd25519PrivateKeyPem, generateEd25519PrivateKey } from '../src/keys/index.js';
import type { ClientCredentials } from '../conformance/client-audit/evaluate-request.js';
import type { SdkAdapterLink } from '../conformance/sdk-explore/protocol.js';
import type { StartSdkBackend } from '../conformance/sdk-explore/env.js';
import { programEnv } from '../conformance/process/program-env.js';
import { SECRET_ENV } from '../conformance/report/redact.js';
import { AdapterProcess } from '../vectors/harness/adapter-process.js';

export interface SdkAuditApplication {
  readonly credentials: ClientCredentials & { readonly merchantId: string };
  /** PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY for the adapter's environment. */
  readonly adapterEnv: Readonly<Record<string, string>>;
  readonly privateKeyPem: string;
}

/** A fresh application: ids, a secret and an Ed25519 key pair that live only for this run. */
export function sdkAuditApplication(): SdkAuditApplication {
  const privateKey = generateEd25519PrivateKey();
  const applicationSecret = randomBytes(24).toString('base64url');
  const privateKeyPem = exportEd25519PrivateKeyPem(privateKey);
  return {
    credentials: {
      applicationId: randomUUID(),
      applicationSecret,
      keyId: `sdk-audit-${randomUUID().slice(0, 8)}`,
      publicKey: privateKey.publicKey,
      merchantId: randomUUID(),
    },
    adapterEnv: {
      [SECRET_ENV['application-secret']]: applicationSecret,
      [SECRET_ENV['private-key']]: privateKeyPem,
    },
    privateKeyPem,
  };
}

/** The reference service for one sequence: the application, the drawn variant and the explorer's webhook key. */
export function referenceSdkBackend(app: SdkAuditApplication): StartSdkBackend {
  return async ({ variant, webhookSigningKey }) => {
    const { startReferenceService } = await import('../server/index.js');
    const service = await startReferenceService({
      applications: [{ ...app.credentials }],
      variant,
      webhookSigningKey,
    });
    const unsettled = service.seededPayments.unsettled[0];
    return {
      baseUrl: service.baseUrl,
      application: {
        applicationId: app.credentials.applicationId,
        merchantId: app.credentials.merchantId,
        keyId: app.credentials.keyId,
        payInAccountSelector: service.credentials.payInAccountSelector,
      },
      settledPayment: service.seededPayments.settled[0]!,
      ...(unsettled ? { unsettledPayment: unsettled } : {}),
      copDestinations: service.copDestinations,
      close: () => service.close(),
    };
  };
}

/**
 * Starts the adapter command (through the shell, in its own process group) as a link the explorer talks over. `env`
 * holds the run's credentials (`adapterEnv`); the adapter gets them and the ordinary part of `env`, nothing else of
 * payconform's (programEnv, role sdk-adapter).
 */
export function startAdapterLink(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
): SdkAdapterLink {
  const child = new AdapterProcess(command, { env: programEnv('sdk-adapter', env) });
  return {
    async ask(message, timeoutMs) {
      child.drain(); // lines left from an operation that timed out are not this one's answer
      if (!child.send(message))
        return { kind: 'exited', ...(child.exitStatus() ?? { code: null, signal: null }) };
      return child.nextLine(timeoutMs);
    },
    stderr: () => child.stderr(),
    stop: () => child.stop(),
  };
}

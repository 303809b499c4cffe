// One drawn sequence against the SDK: the reference service with the drawn personality, the outage relay in front of
// it, the client audit's verifying endpoint in front of that (every request judged as it arrived), then each step
// asked of the adapter and judged. The sequence stops at the first step that breaks a MUST; a warning (a SHOULD
// broken) is kept and the sequence goes on, so it never hides a MUST later in the same sequence.
import { ClientSession } from '../client-audit/evaluate-request.js';
import {
  startVerifyingEndpoint,
  type RunningVerifyingEndpoint,
} from '../client-audit/verifying-endpoint.js';
import { sendRequest } from '../http/http-client.js';
import { withoutExchangeLog } from '../http/exchange-log.js';
import type { SdkSequence, SdkStep } from './draws.js';
import type { SequenceEnv } from './env.js';
import { startOutageRelay, type OutageRelay } from './outage-relay.js';
import { configureAdapter } from './protocol.js';
import { runStep, type StepRecord, type StepState } from './steps.js';
import { createModelSide } from './model-judge.js';
import { failsSdk } from './judge.js';

export interface SequenceRecord {
  readonly steps: readonly StepRecord[];
  /** The adapter broke the protocol (no answer, not JSON, not the schema): the run cannot judge the SDK. */
  readonly broken?: string;
}

/** The public key exactly as the service serves it (`GET /.well-known/signature/pem`). */
async function servedPublicKey(baseUrl: string): Promise<string> {
  const sent = await withoutExchangeLog(() =>
    sendRequest(
      { method: 'GET', url: `${baseUrl}/.well-known/signature/pem`, headers: {} },
      { timeoutMs: 10_000 },
    ),
  );
  return Buffer.from(sent.response?.body ?? new Uint8Array(0)).toString('utf8');
}

export async function runSequence(
  sequence: SdkSequence,
  env: SequenceEnv,
): Promise<SequenceRecord> {
  const backend = await env.startBackend({
    variant: sequence.personality.variant,
    webhookSigningKey: env.keys.service,
  });
  let relay: OutageRelay | undefined;
  let endpoint: RunningVerifyingEndpoint | undefined;
  try {
    relay = await startOutageRelay(backend.baseUrl, sequence.personality.latencyMs);
    const session = new ClientSession(env.credentials);
    endpoint = await startVerifyingEndpoint({
      host: '127.0.0.1',
      port: 0,
      session,
      backendUrl: relay.baseUrl,
    });
    const configured = await configureAdapter(
      env.link,
      { baseUrl: endpoint.baseUrl, ...backend.application },
      env.stepTimeoutMs,
    );
    if (configured !== undefined) return { steps: [], broken: configured };
    const state: StepState = {
      backend,
      relay,
      endpoint,
      publicKey: await servedPublicKey(backend.baseUrl),
      payouts: [],
      model: createModelSide(),
      refundablePence: Math.round(Number(backend.settledPayment.amount) * 100),
    };
    return await playSteps(sequence.steps, state, env);
  } finally {
    await endpoint?.close(200);
    await relay?.close();
    await backend.close();
  }
}

async function playSteps(
  steps: readonly SdkStep[],
  state: StepState,
  env: SequenceEnv,
): Promise<SequenceRecord> {
  const records: StepRecord[] = [];
  for (const [i, step] of steps.entries()) {
    const record = await runStep(i + 1, step, state, env);
    records.push(record);
    if (record.answer.kind === 'broken') return { steps: records, broken: record.answer.reason };
    if (record.judgements.some(failsSdk)) break;
  }
  return { steps: records };
}

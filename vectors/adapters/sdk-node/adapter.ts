// The reference SDK adapter (SDK adapter protocol 1, docs/sdk-adapters.md): one JSON line in, one line out, over the
// small SDK in client.ts and webhook.ts. Run: `payconform audit client --adapter "npx tsx vectors/adapters/sdk-node/adapter.ts"`
// (add `--fault NAME` to switch on one of SDK_FAULTS). The secret and the private key come from the environment.
import { createInterface } from 'node:readline';
import { parseEd25519PrivateKey } from '../../../src/keys/index.js';
import { PaymentsClient } from './client.js';
import { faultFrom, typedFrom } from './faults.js';
import { WebhookVerifier } from './webhook.js';

type Message = { id: string; op: string; input: Record<string, unknown> };

const fault = faultFrom(process.argv.slice(2), process.env);
const typed = typedFrom(process.argv.slice(2), process.env);
let client: PaymentsClient | undefined;
let webhooks = new WebhookVerifier(fault);

async function answer(message: Message): Promise<Record<string, unknown>> {
  const input = message.input;
  if (message.op === 'configure') return configure(input);
  if (message.op === 'verifyWebhook') {
    const headers = input['headers'] as Array<[string, string]>;
    const body = Buffer.from(String(input['bodyBase64']), 'base64');
    return { webhook: webhooks.verify(headers, body, String(input['publicKey'])) };
  }
  if (client === undefined) return { unsupported: true, reason: 'not configured' };
  if (message.op === 'createPayout') return client.createPayout(input);
  if (message.op === 'commitPayout') return client.commitPayout(String(input['payoutId']));
  if (message.op === 'cancelPayout') return client.cancelPayout(String(input['payoutId']));
  if (message.op === 'createRefund')
    return client.createRefund(String(input['paymentId']), String(input['amount']));
  return { unsupported: true, reason: `no operation "${message.op}"` };
}

function configure(input: Record<string, unknown>): Record<string, unknown> {
  const secret = process.env['PAYCONFORM_APPLICATION_SECRET'];
  const key = process.env['PAYCONFORM_PRIVATE_KEY'];
  if (!secret || !key)
    return {
      unsupported: true,
      reason: 'PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY are needed',
    };
  const config = {
    baseUrl: String(input['baseUrl']),
    applicationId: String(input['applicationId']),
    merchantId: String(input['merchantId']),
    keyId: String(input['keyId']),
    payInAccountSelector: String(input['payInAccountSelector']),
  };
  client = new PaymentsClient(
    { ...config, applicationSecret: secret, privateKey: parseEd25519PrivateKey(key) },
    fault,
    typed,
    // PAYCONFORM_SDK_PAD=N: every result handed on carries N unknown members (how the audit's findings stay bounded).
    Math.max(0, Math.min(1_000_000, Number(process.env['PAYCONFORM_SDK_PAD'] ?? 0) || 0)),
  );
  webhooks = new WebhookVerifier(fault);
  return {
    protocolVersion: 1,
    sdk: {
      name: 'payconform-reference-sdk',
      version: '1',
      configuration: `${fault.size > 0 ? [...fault].join(', ') : 'no fault'}${typed ? ', typed' : ''}`,
    },
  };
}

// Answers in the order asked; a message that breaks the adapter is answered unsupported with the reason.
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  let id = '?';
  try {
    const message = JSON.parse(line) as Message;
    id = String(message.id);
    process.stdout.write(`${JSON.stringify({ id, ...(await answer(message)) })}\n`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stdout.write(`${JSON.stringify({ id, unsupported: true, reason })}\n`);
  }
}

// Discovery: what an audit config leaves out, filled in from a target that offers payconform's /sandbox/ helper
// endpoints (as `payconform serve` does): the CoP destinations from /sandbox/cop-triggers, the settled and
// unsettled payments from /sandbox/payments, the pay-in account and merchant id from /sandbox/applications. What the config states always wins; nothing is invented.
import type { ConformanceConfig, CopStatusKey, PayoutDestinationConfig } from './config.js';
import { COP_STATUS_KEYS, normalizeAmount } from './config.js';
import { sandboxPath } from '../../net/sandbox-protocol.js';
import { sendRequest } from '../http/http-client.js';

export interface Discovery {
  readonly config: ConformanceConfig;
  /** One phrase per filled field (empty when nothing was found or discovery was off). */
  readonly found: readonly string[];
  /** Whether the target answered /sandbox/cop-triggers as payconform's sandbox does. */
  readonly sandbox: boolean;
}

/** An account number and sort code for discovered destinations: the sandbox matches on the holder name only. */
const ACCOUNT = { accountNumber: '12345678', sortCode: '040004' } as const;

const destination = (holderName: string): PayoutDestinationConfig => ({
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName,
  ...ACCOUNT,
  iban: null,
});

type GetOptions = { readonly timeoutMs: number; readonly ca?: string };

async function getJson(url: string, options: GetOptions): Promise<unknown> {
  const ex = await sendRequest(
    { method: 'GET', url, headers: [['accept', 'application/json']] },
    { timeoutMs: options.timeoutMs, ...(options.ca !== undefined ? { ca: options.ca } : {}) },
  );
  if (ex.response === undefined || ex.response.status !== 200) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(ex.response.body)) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

type CopDestinations = Partial<Record<CopStatusKey, PayoutDestinationConfig>>;
type Payments = ConformanceConfig['payments'];

/** The config's CoP destinations plus one per trigger it lacks (and the default name for FULL_MATCH). */
function offerCopDestinations(
  triggers: readonly unknown[],
  defaultStatus: unknown,
  config: ConformanceConfig,
): { readonly cop: CopDestinations; readonly added: readonly string[] } {
  const cop: CopDestinations = { ...config.copDestinations };
  const added: string[] = [];
  const offer = (key: CopStatusKey, holderName: string): void => {
    if (cop[key] !== undefined) return;
    cop[key] = destination(holderName);
    added.push(key);
  };
  for (const t of triggers) {
    if (!isRecord(t) || typeof t['holderName'] !== 'string') continue;
    const key = t['copStatus'] === null ? 'null' : String(t['copStatus']);
    if ((COP_STATUS_KEYS as readonly string[]).includes(key))
      offer(key as CopStatusKey, t['holderName']);
  }
  // "anything else → FULL_MATCH": any ordinary name gets the default.
  if (defaultStatus === 'FULL_MATCH') offer('FULL_MATCH', 'Jane Payee');
  return { cop, added };
}

/** The pay-in account and merchant id of the config's application, where the config lacks them. */
async function discoverApplication(
  base: string,
  config: ConformanceConfig,
  options: GetOptions,
  found: string[],
): Promise<{ payInAccountSelector?: string; merchantId?: string }> {
  let { payInAccountSelector, merchantId } = config;
  if (
    config.applicationId === undefined ||
    (payInAccountSelector !== undefined && merchantId !== undefined)
  )
    return { payInAccountSelector, merchantId };
  const apps = await getJson(base + sandboxPath('listApplications'), options);
  const app = Array.isArray(apps)
    ? apps.find(
        (a): a is Record<string, unknown> =>
          isRecord(a) && a['applicationId'] === config.applicationId,
      )
    : undefined;
  if (payInAccountSelector === undefined && typeof app?.['payInAccountSelector'] === 'string') {
    payInAccountSelector = app['payInAccountSelector'];
    found.push(`payInAccountSelector "${payInAccountSelector}"`);
  }
  if (merchantId === undefined && typeof app?.['merchantId'] === 'string') {
    merchantId = app['merchantId'];
    found.push(`merchantId ${merchantId}`);
  }
  return { payInAccountSelector, merchantId };
}

/** The sandbox's payments: settled ones never refunded (with a usable amount), and those not settled. */
function sortPayments(list: readonly unknown[]): {
  settled: Array<{ paymentId: string; amount: string }>;
  unsettled: Array<{ paymentId: string; status: string }>;
} {
  const settled: Array<{ paymentId: string; amount: string }> = [];
  const unsettled: Array<{ paymentId: string; status: string }> = [];
  for (const p of list) {
    if (!isRecord(p) || typeof p['paymentId'] !== 'string' || typeof p['status'] !== 'string')
      continue;
    // A payment already refunded has less to refund and may hold an active refund: only untouched ones.
    const untouched = !Array.isArray(p['refunds']) || p['refunds'].length === 0;
    const amount =
      typeof p['amount'] === 'number' || typeof p['amount'] === 'string'
        ? normalizeAmount(p['amount'])
        : undefined;
    if (p['status'] === 'SETTLED' && untouched && amount !== undefined)
      settled.push({ paymentId: p['paymentId'], amount });
    else if (p['status'] !== 'SETTLED')
      unsettled.push({ paymentId: p['paymentId'], status: p['status'] });
  }
  return { settled, unsettled };
}

/** The config's payments, each list the config leaves empty filled from the sandbox's. */
async function discoverPayments(
  base: string,
  config: ConformanceConfig,
  options: GetOptions,
  found: string[],
): Promise<Payments> {
  const payments = config.payments;
  if (payments.settled.length > 0 && payments.unsettled.length > 0) return payments;
  const query =
    config.applicationId !== undefined
      ? `?applicationId=${encodeURIComponent(config.applicationId)}`
      : '';
  const list = await getJson(base + sandboxPath('listPayments') + query, options);
  if (!Array.isArray(list)) return payments;
  const { settled, unsettled } = sortPayments(list);
  const useSettled = payments.settled.length === 0 && settled.length > 0;
  const useUnsettled = payments.unsettled.length === 0 && unsettled.length > 0;
  if (useSettled) found.push(`${settled.length} settled payment(s)`);
  if (useUnsettled) found.push(`${unsettled.length} unsettled payment(s)`);
  return {
    settled: useSettled ? settled : payments.settled,
    unsettled: useUnsettled ? unsettled : payments.unsettled,
  };
}

/**
 * Fills missing `copDestinations` keys and empty `payments` lists from the target's /sandbox/, and sets `sandbox`
 * when it answers. Off when the config says `"sandbox": false`. Never throws: a target without /sandbox/ leaves the
 * config as it was.
 */
export async function discoverFromSandbox(
  target: string,
  config: ConformanceConfig,
  options: GetOptions,
): Promise<Discovery> {
  if (config.sources['sandbox'] === 'config' && !config.sandbox)
    return { config, found: [], sandbox: false };
  const base = target.replace(/\/+$/, '');
  const triggers = await getJson(base + sandboxPath('listCopTriggers'), options);
  if (!isRecord(triggers) || !Array.isArray(triggers['triggers']))
    return { config, found: [], sandbox: false };
  const found: string[] = [];
  const { cop, added } = offerCopDestinations(triggers['triggers'], triggers['default'], config);
  if (added.length > 0) found.push(`copDestinations ${added.join(', ')}`);
  const { payInAccountSelector, merchantId } = await discoverApplication(
    base,
    config,
    options,
    found,
  );
  const payments = await discoverPayments(base, config, options, found);
  if (!config.sandbox) found.push('"sandbox": true');
  return {
    config: {
      ...config,
      ...(payInAccountSelector !== undefined ? { payInAccountSelector } : {}),
      ...(merchantId !== undefined ? { merchantId } : {}),
      copDestinations: cop,
      payments,
      sandbox: true,
    },
    found,
    sandbox: true,
  };
}

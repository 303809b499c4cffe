// payconform's /sandbox/ helper protocol, apart from the spec's API: each endpoint's method and path, written once.
// The reference service's routes (server/routes/sandbox.ts) and its portal (server/portal/actions.ts) serve and call
// them; the audits that ask a target's /sandbox/ (conformance/state-hook/sandbox-provider.ts, conformance/config/discover.ts)
// build their requests from them. test/facts-once.test.ts fails on a /sandbox/ path written anywhere else in shipped code.

/** Where the helpers are served unless told otherwise (`sandboxPath`, `payconform serve --sandbox-path`). */
export const SANDBOX_BASE_PATH = '/sandbox';

/** One helper endpoint: its method, its path below the base (`{name}` is one path segment), what it reads. */
export interface SandboxEndpoint {
  readonly method: 'GET' | 'POST';
  /** Below the base: `/payments/{paymentId}`; '' is the base itself (served with and without a trailing slash). */
  readonly path: string;
  /** The query (`?…`) or JSON body (`{…}`) it reads, as the index lists it. */
  readonly takes?: string;
}

/** Every helper endpoint, by name, in the order the index lists them. */
export const SANDBOX_ENDPOINTS = {
  index: { method: 'GET', path: '' },
  listPayments: { method: 'GET', path: '/payments' },
  createPayment: {
    method: 'POST',
    path: '/payments',
    takes:
      '{applicationId?, amount, merchantPaymentId?, reference? (ignored: the service assigns it), payer?: {name, accountNumber, sortCode}, metadata?, isExternal?, status?}',
  },
  getPayment: { method: 'GET', path: '/payments/{paymentId}' },
  movePayment: {
    method: 'POST',
    path: '/payments/{paymentId}/status',
    takes: '{status: COMPLETED|SETTLED|FAILED, errorDescription?}',
  },
  listPayouts: { method: 'GET', path: '/payouts' },
  getPayout: { method: 'GET', path: '/payouts/{payoutId}' },
  advancePayout: { method: 'POST', path: '/payouts/{payoutId}/advance', takes: '{status?}' },
  listRefunds: { method: 'GET', path: '/refunds' },
  getRefund: { method: 'GET', path: '/refunds/{refundId}' },
  advanceRefund: { method: 'POST', path: '/refunds/{refundId}/advance', takes: '{status?}' },
  listDeliveries: { method: 'GET', path: '/deliveries', takes: '?kind=&resourceId=' },
  listCopTriggers: { method: 'GET', path: '/cop-triggers' },
  listFaults: { method: 'GET', path: '/faults' },
  listApplications: { method: 'GET', path: '/applications' },
} as const satisfies Record<string, SandboxEndpoint>;

/** The name of one helper endpoint. */
export type SandboxEndpointName = keyof typeof SANDBOX_ENDPOINTS;

/**
 * The path of endpoint `name` under `base`, each `{param}` replaced by its value (percent-encoded), e.g.
 * `sandboxPath('advancePayout', { payoutId: 'p-1' })` is `/sandbox/payouts/p-1/advance`. A parameter not given is a
 * TypeError (a caller's mistake).
 */
export function sandboxPath(
  name: SandboxEndpointName,
  params: Readonly<Record<string, string>> = {},
  base: string = SANDBOX_BASE_PATH,
): string {
  const path = SANDBOX_ENDPOINTS[name].path.replace(/\{(\w+)\}/g, (_, param: string) => {
    const value = params[param];
    if (value === undefined) throw new TypeError(`sandbox endpoint ${name} needs "${param}"`);
    return encodeURIComponent(value);
  });
  return `${base}${path}`;
}

/** The index's line for an endpoint: `POST /sandbox/payouts/{payoutId}/advance {status?}`. */
export function describeSandboxEndpoint(endpoint: SandboxEndpoint): string {
  const takes = endpoint.takes === undefined ? '' : endpoint.takes;
  const gap = takes === '' || takes.startsWith('?') ? '' : ' ';
  return `${endpoint.method.padEnd(4)} ${SANDBOX_BASE_PATH}${endpoint.path}${gap}${takes}`;
}

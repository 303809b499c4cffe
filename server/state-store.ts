// The service's resources behind one interface the routes and the lifecycle call: in this process's memory (the
// default), or in a store several instances share (Redis: server/redis-state-store.ts). Every change is an atomic
// read-modify-write, so the rules checked inside it (commit only from AWAITING_COMMIT, the refund limits) hold across
// instances. ServiceState stays this instance's view (the portal reads it); a shared store keeps it up to date with
// what this instance reads and writes.
import type { Payment, Payout, Refund, ServiceState, StateKind } from './state.js';
import type { WebhookKind } from './webhook-delivery.js';

/** Result of an atomic change: `undefined` when no such resource exists. */
export type Changed<T, R> = { readonly item: T; readonly result: R } | undefined;

export interface StateStore {
  /** True when other instances share this store (Redis). */
  readonly shared: boolean;
  getPayment(id: string): Promise<Payment | undefined>;
  getPayout(id: string): Promise<Payout | undefined>;
  getRefund(id: string): Promise<Refund | undefined>;
  refundsOf(paymentId: string): Promise<Refund[]>;
  listPayments(): Promise<Payment[]>;
  listPayouts(): Promise<Payout[]>;
  listRefunds(): Promise<Refund[]>;
  /** A payment reference no payment carries yet, reserved (spec, What the service does 7: unique across merchants). */
  newPaymentReference(): Promise<string>;
  /**
   * Takes room for one more `kind` of `applicationId`, or throws the 507 `state_full` when the application's share
   * or the whole service is full (StateLimits). Resolves with a function that gives the room back (call it when the
   * object was not created after all).
   */
  reserve(kind: StateKind, applicationId: string): Promise<() => Promise<void>>;
  addPayment(payment: Payment): Promise<void>;
  /**
   * Stores a new payout within its application's share and the service's limit (StateLimits), in one atomic step;
   * throws the 507 `state_full` when either is full.
   */
  addPayout(payout: Payout): Promise<void>;
  /**
   * Runs `change` on the current payout and stores what it leaves, atomically: a concurrent change (here or in
   * another instance) makes it run again on the newer payout. `change` may throw (an HttpError): nothing is stored.
   */
  changePayout<R>(id: string, change: (payout: Payout) => R): Promise<Changed<Payout, R>>;
  changeRefund<R>(id: string, change: (refund: Refund) => R): Promise<Changed<Refund, R>>;
  changePayment<R>(id: string, change: (payment: Payment) => R): Promise<Changed<Payment, R>>;
  /**
   * Creates the refund `decide` returns from the payment and its refunds so far, atomically with respect to every
   * other refund of that payment (one decision at a time per payment, across instances). `decide` may throw.
   */
  createRefund(
    paymentId: string,
    decide: (payment: Payment, earlier: readonly Refund[]) => Refund,
  ): Promise<Refund | undefined>;
  /** Runs `seed` once per store (the first instance to start); every instance gets what it returned. */
  seedOnce<T>(name: string, seed: () => Promise<T> | T): Promise<T>;
  /** Stores an application's own webhook URLs (the portal's Settings), for every instance; `{}` returns it to the defaults. */
  setWebhookUrls(applicationId: string, urls: WebhookUrls): Promise<void>;
  /**
   * Reads every application's webhook URLs from the store into this instance's view (`state.webhookUrls`, what a
   * webhook queued here is sent to) and returns that view.
   */
  loadWebhookUrls(): Promise<ReadonlyMap<string, WebhookUrls>>;
  close(): Promise<void>;
}

/** Takes room for one `kind` of `applicationId` (507 when full), runs `add`, and gives the room back when it throws. */
export async function addWithinLimits(
  store: StateStore,
  kind: StateKind,
  applicationId: string,
  add: () => Promise<void>,
): Promise<void> {
  const release = await store.reserve(kind, applicationId);
  try {
    await add();
  } catch (error) {
    await release().catch(() => {});
    throw error;
  }
}

/** An application's own webhook URL per kind; a kind left out uses the service's default. */
export type WebhookUrls = Partial<Record<WebhookKind, string>>;

/** The in-memory store: ServiceState's maps themselves (one process; changes are synchronous, hence atomic). */
export class MemoryStateStore implements StateStore {
  readonly shared = false;
  readonly #seeds = new Map<string, unknown>();
  /** Per kind: applicationId → objects held (or reserved). */
  readonly #held: Record<StateKind, Map<string, number>> = {
    payments: new Map(),
    payouts: new Map(),
    refunds: new Map(),
  };
  constructor(private readonly state: ServiceState) {}

  async reserve(kind: StateKind, applicationId: string) {
    this.#take(kind, applicationId);
    const held = this.#held[kind];
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      const now = (held.get(applicationId) ?? 1) - 1;
      if (now > 0) held.set(applicationId, now);
      else held.delete(applicationId);
    };
  }

  /** Counts one more `kind` of `applicationId`, or throws the 507 when its share or the service is full. */
  #take(kind: StateKind, applicationId: string): void {
    const held = this.#held[kind];
    const mine = held.get(applicationId) ?? 0;
    if (mine >= this.state.limits[`${kind}PerApplication`])
      throw this.state.fullError(kind, 'application', applicationId, 'memory');
    // The whole service: every object held, seeded ones included (this process holds them all).
    if (this.state[kind].size >= this.state.limits[kind])
      throw this.state.fullError(kind, 'service', applicationId, 'memory');
    held.set(applicationId, mine + 1);
  }

  async getPayment(id: string) {
    return this.state.payments.get(id);
  }
  async getPayout(id: string) {
    return this.state.payouts.get(id);
  }
  async getRefund(id: string) {
    return this.state.refunds.get(id);
  }
  async refundsOf(paymentId: string) {
    return this.state.refundsOf(paymentId);
  }
  async listPayments() {
    return [...this.state.payments.values()];
  }
  async listPayouts() {
    return [...this.state.payouts.values()];
  }
  async listRefunds() {
    return [...this.state.refunds.values()];
  }
  async newPaymentReference() {
    return this.state.assignPaymentReference();
  }
  async addPayment(payment: Payment) {
    this.state.payments.set(payment.paymentId, payment);
  }
  async addPayout(payout: Payout) {
    this.#take('payouts', payout.applicationId);
    this.state.payouts.set(payout.payoutId, payout);
  }
  async changePayout<R>(id: string, change: (payout: Payout) => R) {
    return changeInPlace(this.state.payouts.get(id), change);
  }
  async changeRefund<R>(id: string, change: (refund: Refund) => R) {
    return changeInPlace(this.state.refunds.get(id), change);
  }
  async changePayment<R>(id: string, change: (payment: Payment) => R) {
    return changeInPlace(this.state.payments.get(id), change);
  }
  async createRefund(
    paymentId: string,
    decide: (payment: Payment, earlier: readonly Refund[]) => Refund,
  ) {
    const payment = this.state.payments.get(paymentId);
    if (payment === undefined) return undefined;
    const refund = decide(payment, this.state.refundsOf(paymentId));
    this.state.refunds.set(refund.refundId, refund);
    return refund;
  }
  async seedOnce<T>(name: string, seed: () => Promise<T> | T): Promise<T> {
    if (!this.#seeds.has(name)) this.#seeds.set(name, await seed());
    return this.#seeds.get(name) as T;
  }
  async setWebhookUrls(applicationId: string, urls: WebhookUrls) {
    this.state.webhookUrls.set(applicationId, { ...urls });
  }
  async loadWebhookUrls() {
    return this.state.webhookUrls;
  }
  async close() {}
}

/** Applies `change` to a copy and commits the copy only when `change` returns, so a throw leaves `item` untouched. */
function changeInPlace<T extends object, R>(
  item: T | undefined,
  change: (item: T) => R,
): Changed<T, R> {
  if (item === undefined) return undefined;
  const draft = { ...item };
  const result = change(draft);
  Object.assign(item, draft);
  return { item, result };
}

// The reference service (`payconform serve`): the spec's endpoints over the signing core, with a /sandbox/ for payments,
// lifecycles and webhook deliveries, and deliberate faults for proving conformance checks. Public API of server/.
import { FaultSet } from './faults.js';
import type { ReferenceServiceOptions, RunningReferenceService } from './options.js';
import {
  buildServiceParts,
  createServiceServer,
  listenOrStop,
  openStores,
  registerApplications,
  retryPolicy,
  runningService,
  serviceLog,
  webhookSigningKey,
  type ServiceCore,
} from './start-steps.js';
import { ServiceState } from './state.js';

export {
  faultCatalogue,
  isFaultName,
  type FaultDescription,
  type FaultName,
  type ExplorerFaultName,
  type MethodFaultName,
  type ServiceVariant,
} from './faults.js';
export {
  copTriggers,
  confirmPayee,
  type CopDestination,
  type CopDestinationKey,
} from './cop-triggers.js';
export { type ServiceErrorBody } from './error-body.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connections.js';
export { generateLoopbackTls, type GeneratedLoopbackTls, type ServerTls } from '../net/tls.js';
export { plannedOutcome } from './lifecycle.js';
export type {
  ApplicationConfig,
  ReferenceServiceOptions,
  RunningReferenceService,
  SeededPayments,
} from './options.js';
export type {
  AnsweredRequest,
  RouteHandler,
  RouteRequest,
  RouteResponse,
  ServiceContext,
  ServiceExtension,
} from './context.js';
export type {
  ApplicationCredentials,
  CopStatus,
  PaymentStatus,
  PayoutStatus,
  RefundStatus,
} from './state.js';
export type {
  DeliveryAttempt,
  DeliveryRecord,
  RetryPolicy,
  WebhookDeliveryOptions,
  WebhookKind,
} from './webhook-delivery.js';
export { defaultRetryPolicy } from './webhook-delivery.js';

/** Starts the service and resolves once it listens. Throws TypeError for bad options, KeyFormatError for bad keys. */
export async function startReferenceService(
  options: ReferenceServiceOptions = {},
): Promise<RunningReferenceService> {
  const host = options.host ?? '127.0.0.1';
  const { log, limitedLog } = serviceLog(options);
  const core: ServiceCore = {
    options,
    now: options.now ?? Date.now,
    log,
    faults: new FaultSet(options.faults ?? [], options.variant),
    state: new ServiceState(options.stateLimits),
  };
  const applications = registerApplications(core.state, options);
  const retry = retryPolicy(options);
  const stores = await openStores(core, applications[0]!.applicationId);
  const parts = buildServiceParts(core, stores, retry, webhookSigningKey(options));
  const server = createServiceServer(core, parts);
  const address = await listenOrStop(server, host, options.port ?? 0, stores, parts);
  return runningService(core, { applications, stores, parts, server, address, limitedLog });
}

// The service behind the client audit's verifying endpoint: the reference service in-process, holding the client's
// application and its seeded payments. The CLI hands this to the conformance library, which never imports a service.
import type {
  ClientAuditBackend,
  StartClientAuditBackend,
} from '../conformance/client-audit/serve-client-audit.js';

export const startReferenceBackend: StartClientAuditBackend = async (application) => {
  // Loaded on use, not at import: a command that audits no client should not load the reference service.
  const { startReferenceService } = await import('../server/index.js');
  const service = await startReferenceService({ applications: [application] });
  const settled = service.seededPayments.settled[0]!;
  const unsettled = service.seededPayments.unsettled[0];
  const backend: ClientAuditBackend = {
    baseUrl: service.baseUrl,
    settledPayment: settled,
    ...(unsettled ? { unsettledPayment: unsettled } : {}),
    payInAccountSelector: service.credentials.payInAccountSelector,
    close: () => service.close(),
  };
  return backend;
};

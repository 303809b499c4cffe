// Who is calling: the signed-request check (create payout, and others when signed or required) and the plain
// application-id/secret check for unsigned commit, cancel and refund calls.
import { applicationSecretMatches } from '../src/profile/application-secret.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import { verificationFailureError } from '../net/verify-failure.js';
import { HttpError } from './error-body.js';
import type { FaultSet } from './faults.js';
import type { Application, ServiceState } from './state.js';

export type SignatureOutcome =
  | { readonly ok: true; readonly applicationId: string; readonly keyId: string }
  | {
      readonly ok: false;
      readonly code: string;
      readonly step: number | string;
      readonly message: string;
    };

/** Runs the 12-step verification of the signing profile over one request (built in signature-verifier.ts). */
export type SignatureVerifier = (request: HttpRequest) => Promise<SignatureOutcome>;

export class RequestAuthenticator {
  constructor(
    private readonly state: ServiceState,
    private readonly faults: FaultSet,
    private readonly verifySignature: SignatureVerifier,
  ) {}

  /** Failed authentication: 401, or 403 in variant alt (the status is not shown by the spec). */
  private get failureStatus(): 401 | 403 {
    return this.faults.alt ? 403 : 401;
  }

  /** True when the request carries any RFC 9421 signature field. */
  static isSigned(request: HttpRequest): boolean {
    return (
      getFieldValues(request.headers, 'signature').length > 0 ||
      getFieldValues(request.headers, 'signature-input').length > 0
    );
  }

  /** True when the request carries both Signature and Signature-Input. */
  static isFullySigned(request: HttpRequest): boolean {
    return (
      getFieldValues(request.headers, 'signature').length > 0 &&
      getFieldValues(request.headers, 'signature-input').length > 0
    );
  }

  /**
   * Strict check for a signed request: the application, or a 401 HttpError whose code is the verifier's code.
   * Fault accept-unsigned lets a request without signature fields through on the plain credential check.
   */
  async verifySigned(request: HttpRequest): Promise<Application> {
    if (this.faults.has('accept-unsigned') && !RequestAuthenticator.isFullySigned(request))
      return this.checkCredentials(request);
    let outcome: SignatureOutcome;
    try {
      outcome = await this.verifySignature(request);
    } catch (error) {
      // The verifier returns results for hostile input; an exception here is a defect, still answered with a 401.
      outcome = {
        ok: false,
        code: 'VERIFIER_ERROR',
        step: 'unknown',
        message: error instanceof Error ? error.message : String(error),
      };
    }
    if (!outcome.ok) {
      // The nonce store (e.g. Redis) or the application lookup failed: refused (fail closed), but with 503, as the
      // service's failure. This test service shows the cause; the middleware (payconform/node) does not by default.
      throw verificationFailureError(outcome, {
        clientStatus: this.failureStatus,
        serviceDetail: true,
      });
    }
    const app = this.state.applications.get(outcome.applicationId);
    if (app === undefined)
      throw new HttpError(
        this.failureStatus,
        'unknown_application',
        `unknown application "${outcome.applicationId}"`,
      );
    return app;
  }

  /** Commit, cancel, refund: verify a signature when one is sent (or required), else check id and secret. */
  async authenticate(request: HttpRequest, requireSignature: boolean): Promise<Application> {
    if (requireSignature || RequestAuthenticator.isSigned(request))
      return this.verifySigned(request);
    return this.checkCredentials(request);
  }

  /** Spec, Authentication: x-application-id and x-application-secret both present and valid. */
  checkCredentials(request: HttpRequest): Application {
    const ids = getFieldValues(request.headers, 'x-application-id');
    const secrets = getFieldValues(request.headers, 'x-application-secret');
    if (ids.length > 1)
      throw new HttpError(
        this.failureStatus,
        'duplicate_application_id',
        'x-application-id sent more than once',
      );
    if (secrets.length > 1)
      throw new HttpError(
        this.failureStatus,
        'duplicate_application_secret',
        'x-application-secret sent more than once',
      );
    const id = ids[0]?.trim();
    let app = id === undefined || id === '' ? undefined : this.state.applications.get(id);
    if (app === undefined) {
      if (this.faults.has('no-application-id-check'))
        app = this.state.applications.values().next().value;
      if (app === undefined) {
        throw id === undefined || id === ''
          ? new HttpError(
              this.failureStatus,
              'missing_application_id',
              'x-application-id header is required',
            )
          : new HttpError(this.failureStatus, 'unknown_application', `unknown application "${id}"`);
      }
    }
    if (this.faults.has('no-secret-check')) return app;
    const secret = secrets[0]?.trim();
    if (secret === undefined || secret === '')
      throw new HttpError(
        this.failureStatus,
        'missing_application_secret',
        'x-application-secret header is required',
      );
    if (!applicationSecretMatches(secret, app.applicationSecret))
      throw new HttpError(
        this.failureStatus,
        'invalid_application_secret',
        'x-application-secret is not valid for this application',
      );
    return app;
  }
}

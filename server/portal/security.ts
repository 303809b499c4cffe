// What keeps a web page the developer visits from driving the sandbox on localhost: a CSRF token in every form,
// same-origin checks on every state-changing request, and (on loopback) a Host header that names loopback, so a
// DNS-rebinding page cannot pose as the portal's origin either.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackAuthority } from '../../net/loopback.js';

export class PortalGuard {
  /** One token per service process: forms carry it back; a cross-origin page cannot read it. */
  readonly csrfToken = randomBytes(32).toString('base64url');

  constructor(private readonly loopbackOnly: boolean) {}

  /** Why a request may not reach the portal at all, or undefined. */
  refuseHost(req: IncomingMessage): string | undefined {
    const host = req.headers.host ?? '';
    if (this.loopbackOnly && !isLoopbackAuthority(host))
      return `the portal answers only to loopback host names, not "${host}"`;
    return undefined;
  }

  /** Why a state-changing request is refused, or undefined: it must come from the portal's own page, with its token. */
  refuseChange(req: IncomingMessage, form: URLSearchParams): string | undefined {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return `cross-site request refused (Sec-Fetch-Site: ${site})`;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      let originHost: string;
      try {
        originHost = new URL(origin).host;
      } catch {
        return 'malformed Origin header';
      }
      if (originHost.toLowerCase() !== (req.headers.host ?? '').toLowerCase())
        return `cross-origin request refused (Origin: ${origin})`;
    } else if (origin === 'null') return 'request from an opaque origin refused';
    const token = Buffer.from(form.get('csrf') ?? '', 'utf8');
    const expected = Buffer.from(this.csrfToken, 'utf8');
    if (token.length !== expected.length || !timingSafeEqual(token, expected))
      return 'missing or wrong CSRF token: reload the portal page';
    return undefined;
  }
}

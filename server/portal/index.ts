// The sandbox portal (`payconform serve`, at /portal): the merchant portal the spec describes (Balances with "Make
// Payout", Payments with the refund dialog, Settings → Webhooks And Callbacks) and what a developer needs beside it
// (Requests with signature diagnoses, Webhooks with resend, sandbox controls). A thin edge over the same route
// handlers and state as the API: see actions.ts.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ed25519PublicKey } from '../../src/ed25519/backend.js';
import type { HttpRequest } from '../../src/http/message.js';
import type { ServiceContext, ServiceExtension } from '../context.js';
import { HttpError } from '../error-body.js';
import { PortalActions } from './actions.js';
import { PORTAL_SCRIPT, PORTAL_STYLE } from './assets.js';
import { page, VIEWS, type Html } from './html.js';
import { LiveChanges } from './live.js';
import { RequestLog } from './request-log.js';
import { loadPortalState } from './snapshot.js';
import { PortalGuard } from './security.js';
import {
  balancesView,
  paymentsView,
  requestDetailView,
  requestsView,
  sandboxView,
  settingsView,
  webhooksView,
  type ViewInput,
} from './views.js';

export interface PortalOptions {
  /**
   * Serve the portal to non-loopback Host names too (default false: only `localhost`, `127.x.x.x` and `[::1]` are
   * answered, which also defeats DNS rebinding).
   */
  readonly allowNonLoopbackHosts?: boolean;
  /**
   * Explains why a rejected signed request's signature failed (the client audit's diagnosis); given by the caller so
   * that server/ does not import conformance/. Without it the Requests view shows the step and code only.
   */
  readonly diagnose?: (
    request: HttpRequest,
    publicKeys: ReadonlyMap<string, Ed25519PublicKey>,
  ) => string;
  /** Live streams open at once (default 16). */
  readonly maxLiveViews?: number;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

const MAX_FORM_BYTES = 64 * 1024;
const RENDER: Record<string, (input: ViewInput) => Html> = {
  '/portal/balances': balancesView,
  '/portal/payments': paymentsView,
  '/portal/settings': settingsView,
  '/portal/requests': requestsView,
  '/portal/webhooks': webhooksView,
  '/portal/sandbox': sandboxView,
};

/** The portal as an extension of the reference service (`startReferenceService({ extensions: [createPortal()] })`). */
export function createPortal(
  options: PortalOptions = {},
): (ctx: ServiceContext) => ServiceExtension {
  return (ctx) => new Portal(ctx, options);
}

class Portal implements ServiceExtension {
  private readonly guard: PortalGuard;
  private readonly live: LiveChanges;
  private readonly requests = new RequestLog();
  private readonly actions: PortalActions;
  /** One-shot messages shown after an action (post, redirect, get). */
  private readonly flashes = new Map<string, { ok: boolean; text: string }>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: PortalOptions,
  ) {
    this.guard = new PortalGuard(options.allowNonLoopbackHosts !== true);
    this.live = new LiveChanges(options.maxLiveViews ?? 16);
    this.actions = new PortalActions(ctx);
  }

  requestAnswered(request: Parameters<NonNullable<ServiceExtension['requestAnswered']>>[0]): void {
    this.requests.add(request);
  }

  changed(): void {
    this.live.changed();
  }

  close(): void {
    this.live.close();
  }

  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/';
    if (url !== '/portal' && !url.startsWith('/portal/') && !url.startsWith('/portal?'))
      return false;
    void this.serve(req, res, new URL(url, 'http://portal.invalid')).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const text = error instanceof HttpError ? error.message : 'internal error';
      if (!(error instanceof HttpError))
        this.ctx.log(
          `portal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      if (!res.headersSent)
        res
          .writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
          .end(`${text}\n`);
      else res.destroy();
    });
    return true;
  }

  private async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const refused = this.guard.refuseHost(req);
    if (refused !== undefined) throw new HttpError(403, 'forbidden', refused);
    const path = url.pathname;
    if (req.method === 'POST') return this.runAction(req, res, path);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new HttpError(
        405,
        'method_not_allowed',
        `method ${req.method ?? ''} is not allowed on the portal`,
      );
    req.resume();
    if (path === '/portal' || path === '/portal/') {
      res.writeHead(303, { ...SECURITY_HEADERS, location: VIEWS[0].path }).end();
      return;
    }
    if (path === '/portal/events') {
      this.live.open(res);
      return;
    }
    if (path === '/portal/assets/portal.js')
      return send(res, 'text/javascript; charset=utf-8', PORTAL_SCRIPT);
    if (path === '/portal/assets/portal.css')
      return send(res, 'text/css; charset=utf-8', PORTAL_STYLE);
    return this.renderView(res, url);
  }

  /** POST /portal/actions/<name>: the change (host and CSRF checked), then back to the view with its flash message. */
  private async runAction(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const action = /^\/portal\/actions\/([a-z-]+)$/.exec(path)?.[1];
    if (action === undefined)
      throw new HttpError(404, 'route_not_found', `no portal action at ${path}`);
    const form = await readForm(req);
    const why = this.guard.refuseChange(req, form);
    if (why !== undefined) throw new HttpError(403, 'forbidden', why);
    const result = await this.actions.run(action, form);
    const key = randomBytes(9).toString('base64url');
    this.flashes.set(key, { ok: result.ok, text: result.text });
    if (this.flashes.size > 50) this.flashes.delete(this.flashes.keys().next().value!);
    res.writeHead(303, { ...SECURITY_HEADERS, location: `${result.back}?flash=${key}` }).end();
  }

  /** A view (or one request's detail) rendered from the state now: the whole page, or its main part alone. */
  private async renderView(res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const input: ViewInput = {
      ctx: this.ctx,
      state: await loadPortalState(this.ctx),
      csrf: this.guard.csrfToken,
      requests: this.requests,
    };
    const detail = /^\/portal\/requests\/(\d{1,9})$/.exec(path)?.[1];
    if (detail !== undefined) {
      const entry = this.requests.get(Number(detail));
      if (entry === undefined)
        throw new HttpError(
          404,
          'route_not_found',
          `no request #${detail} (only the last 200 are kept)`,
        );
      const main = requestDetailView(input, entry, this.diagnosis(entry.id));
      return send(
        res,
        'text/html; charset=utf-8',
        page({ title: `Request #${detail}`, path: '/portal/requests', main }),
      );
    }
    const render = RENDER[path];
    if (render === undefined)
      throw new HttpError(404, 'route_not_found', `no portal view at ${path}`);
    const main = render(input);
    if (url.searchParams.get('fragment') === 'main')
      return send(res, 'text/html; charset=utf-8', main.text);
    const flashKey = url.searchParams.get('flash');
    const flash = flashKey === null ? undefined : this.flashes.get(flashKey);
    const title = VIEWS.find((v) => v.path === path)!.title;
    send(
      res,
      'text/html; charset=utf-8',
      page({ title, path, main, ...(flash !== undefined ? { flash } : {}) }),
    );
  }

  /** The diagnosis of a rejected signed request, computed when asked for (it may try thousands of bases). */
  private diagnosis(id: number): string {
    const raw = this.requests.rawSigned(id);
    if (raw === undefined)
      return 'no diagnosis: only rejected signed requests (body up to 64 KiB) are diagnosed';
    if (this.options.diagnose === undefined) return 'no diagnosis engine was given to the portal';
    const appId = raw.headers.find(([n]) => n.toLowerCase() === 'x-application-id')?.[1]?.trim();
    const app = appId === undefined ? undefined : this.ctx.state.applications.get(appId);
    if (app === undefined)
      return `no diagnosis: the request names no known application${appId !== undefined ? ` ("${appId}")` : ''}`;
    return this.options.diagnose(raw, app.publicKeys);
  }
}

function send(res: ServerResponse, contentType: string, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': contentType,
    'content-length': String(bytes.length),
  });
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}

/** The posted form (application/x-www-form-urlencoded, at most 64 KiB). */
function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return Promise.reject(
      new HttpError(
        415,
        'unsupported_media_type',
        'portal actions take an HTML form (application/x-www-form-urlencoded)',
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.destroy();
        reject(new HttpError(413, 'payload_too_large', 'portal form too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

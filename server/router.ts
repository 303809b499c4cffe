// A small route table: method + path pattern → handler; 404 for unknown paths, 405 (with Allow) for known paths with another method.
import { HttpError } from './error-body.js';

export interface RouteMatch<H> {
  readonly handler: H;
  readonly params: Readonly<Record<string, string>>;
}

interface Route<H> {
  readonly method: string;
  readonly pattern: RegExp;
  readonly handler: H;
}

export class Router<H> {
  private readonly routes: Route<H>[] = [];

  /** `path` uses `{name}` for one path segment, e.g. `/api/payouts/{payoutId}/commit`. */
  add(method: string, path: string, handler: H): this {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), handler });
    return this;
  }

  match(method: string, path: string): RouteMatch<H> {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (m === null) continue;
      if (route.method === method) {
        const params: Record<string, string> = {};
        for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = safeDecode(v);
        return { handler: route.handler, params };
      }
      allowed.push(route.method);
    }
    if (allowed.length > 0) {
      throw new HttpError(
        405,
        'method_not_allowed',
        `method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        {
          allow: allowed.join(', '),
        },
      );
    }
    throw new HttpError(404, 'route_not_found', `no endpoint at ${path}`);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

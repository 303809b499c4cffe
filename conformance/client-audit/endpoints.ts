// The spec's endpoints as the client audit sees them: which request is which call, and what each must carry.
import { PAYOUT_MEDIA_TYPE, REFUND_MEDIA_TYPE } from '../../src/schemas/media-types.js';
import type { PayloadKind } from '../../src/schemas/payload-kinds.js';

export { PAYOUT_MEDIA_TYPE, REFUND_MEDIA_TYPE };

export type ClientEndpoint =
  'create-payout' | 'commit-payout' | 'cancel-payout' | 'create-refund' | 'public-key';

export interface EndpointSpec {
  readonly title: string;
  readonly method: string;
  /** `{name}` marks one path segment. */
  readonly path: string;
  /** The requirement describing the call (method, path, headers). */
  readonly requirement: string;
  /** The media type of Content-Type, and the requirement for its version; undefined: no Content-Type shown. */
  readonly contentType?: { readonly media: string; readonly versionRequirement: string };
  /** Accept as the spec shows it; undefined: not shown for this endpoint. */
  readonly accept?: { readonly media: string; readonly versionRequirement: string };
  /** `required`: create payout; `optional`: not shown whether signed (verified when signed); `none`. */
  readonly signature: 'required' | 'optional' | 'none';
  /** The body's schema, or `none` when the spec says "No body". */
  readonly body:
    | {
        readonly kind: PayloadKind;
        readonly requirement: string;
        readonly detailsRequirement: string;
      }
    | 'none'
    | 'bodyless';
  /** Carries x-application-id and x-application-secret. */
  readonly applicationHeaders: boolean;
}

export const endpointSpecs: Readonly<Record<ClientEndpoint, EndpointSpec>> = {
  'create-payout': {
    title: 'create payout',
    method: 'POST',
    path: '/api/payouts',
    requirement: 'PAYOUT-CREATE-REQUEST',
    contentType: { media: PAYOUT_MEDIA_TYPE, versionRequirement: 'VERSION-PAYOUT-MEDIA-TYPE' },
    signature: 'required',
    body: {
      kind: 'payout-create-request',
      requirement: 'PAYOUT-REQUEST-BODY',
      detailsRequirement: 'PAYOUT-CREATE-DETAILS',
    },
    applicationHeaders: true,
  },
  'commit-payout': {
    title: 'commit payout',
    method: 'POST',
    path: '/api/payouts/{payoutId}/commit',
    requirement: 'COP-COMMIT-REQUEST',
    contentType: { media: PAYOUT_MEDIA_TYPE, versionRequirement: 'VERSION-PAYOUT-MEDIA-TYPE' },
    accept: { media: PAYOUT_MEDIA_TYPE, versionRequirement: 'VERSION-PAYOUT-MEDIA-TYPE' },
    signature: 'optional',
    body: 'none',
    applicationHeaders: true,
  },
  'cancel-payout': {
    title: 'cancel payout',
    method: 'POST',
    path: '/api/payouts/{payoutId}/cancel',
    requirement: 'COP-CANCEL-REQUEST',
    contentType: { media: PAYOUT_MEDIA_TYPE, versionRequirement: 'VERSION-PAYOUT-MEDIA-TYPE' },
    accept: { media: PAYOUT_MEDIA_TYPE, versionRequirement: 'VERSION-PAYOUT-MEDIA-TYPE' },
    signature: 'optional',
    body: 'none',
    applicationHeaders: true,
  },
  'create-refund': {
    title: 'create refund',
    method: 'POST',
    path: '/api/merchants/{merchantId}/applications/{applicationId}/refunds',
    requirement: 'REFUND-CREATE-REQUEST',
    contentType: { media: REFUND_MEDIA_TYPE, versionRequirement: 'VERSION-REFUND-MEDIA-TYPE' },
    accept: { media: REFUND_MEDIA_TYPE, versionRequirement: 'VERSION-REFUND-MEDIA-TYPE' },
    signature: 'optional',
    body: {
      kind: 'refund-request',
      requirement: 'REFUND-REQUEST-BODY',
      detailsRequirement: 'REFUND-REQUEST-BODY',
    },
    applicationHeaders: true,
  },
  'public-key': {
    title: 'webhook public key',
    method: 'GET',
    path: '/.well-known/signature/pem',
    requirement: 'KEY-ENDPOINT',
    signature: 'none',
    body: 'bodyless',
    applicationHeaders: false,
  },
};

export interface EndpointMatch {
  /** The endpoint whose path matches (whatever the method). */
  readonly endpoint?: ClientEndpoint;
  readonly params: Readonly<Record<string, string>>;
  /** True when the path matches but the method does not. */
  readonly wrongMethod: boolean;
  /** The path as sent, without the query. */
  readonly path: string;
}

const patterns = (Object.entries(endpointSpecs) as Array<[ClientEndpoint, EndpointSpec]>).map(
  ([id, spec]) => ({
    id,
    spec,
    re: new RegExp(
      `^${spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`,
    ),
  }),
);

/** Which endpoint a request targets; the query is ignored for matching (never for signing). */
export function matchEndpoint(method: string, rawTarget: string): EndpointMatch {
  let path = rawTarget;
  if (!path.startsWith('/')) {
    try {
      path = new URL(rawTarget).pathname;
    } catch {
      return { params: {}, wrongMethod: false, path: rawTarget };
    }
  }
  const q = path.search(/[?#]/);
  if (q !== -1) path = path.slice(0, q);
  for (const p of patterns) {
    const m = p.re.exec(path);
    if (m === null) continue;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.groups ?? {})) {
      try {
        params[k] = decodeURIComponent(v);
      } catch {
        params[k] = v;
      }
    }
    return { endpoint: p.id, params, wrongMethod: method !== p.spec.method, path };
  }
  return { params: {}, wrongMethod: false, path };
}

/**
 * The spec endpoint a path almost names: the same after removing a trailing slash, doubled slashes (a base URL
 * ending in "/" joined with "/api/..."), and letter case. Undefined when the path is a spec path or none is near.
 */
export function nearEndpoint(
  path: string,
): { readonly endpoint: ClientEndpoint; readonly how: string } | undefined {
  if (matchEndpoint('GET', path).endpoint !== undefined) return undefined;
  const hows: string[] = [];
  let p = path;
  if (/\/\/+/.test(p)) {
    p = p.replace(/\/\/+/g, '/');
    hows.push('doubled "/"');
  }
  if (p.length > 1 && p.endsWith('/')) {
    p = p.replace(/\/+$/, '');
    hows.push('a trailing "/"');
  }
  const exact = matchEndpoint('GET', p).endpoint;
  if (exact !== undefined) return { endpoint: exact, how: hows.join(' and ') };
  const lower = matchEndpoint(
    'GET',
    p
      .replace(/^\/api\/[^?#]*/i, (m) =>
        m.replace(/\/(api|payouts|commit|cancel|merchants|applications|refunds)(?=\/|$)/gi, (x) =>
          x.toLowerCase(),
        ),
      )
      .replace(/^\/\.well-known\/signature\/pem$/i, '/.well-known/signature/pem'),
  ).endpoint;
  if (lower !== undefined)
    return { endpoint: lower, how: [...hows, 'other letter case'].join(' and ') };
  return undefined;
}

/** The media type of a Content-Type or Accept member, lowercased, parameters dropped. */
export function mediaTypeOf(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

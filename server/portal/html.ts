// The portal's HTML: escaping, the page frame with its navigation, and small form helpers. Server-rendered; the little
// script in assets.ts (served as /portal/assets/portal.js) only keeps the views live and opens the refund dialog.
/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A tagged template that escapes every interpolated value unless it is `Html` already. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => (out += render(v) + (strings[i + 1] ?? '')));
  return new Html(out);
}

export const VIEWS = [
  { path: '/portal/balances', title: 'Balances' },
  { path: '/portal/payments', title: 'Payments' },
  { path: '/portal/settings', title: 'Settings' },
  { path: '/portal/requests', title: 'Requests' },
  { path: '/portal/webhooks', title: 'Webhooks' },
  { path: '/portal/sandbox', title: 'Sandbox' },
] as const;

export interface PageOptions {
  readonly title: string;
  readonly path: string;
  readonly main: Html;
  readonly flash?: { readonly ok: boolean; readonly text: string };
}

/** The whole page; `<main>` alone is what the live script re-fetches (`?fragment=main`). */
export function page(o: PageOptions): string {
  const nav = VIEWS.map(
    (v) =>
      html`<a href="${v.path}"${v.path === o.path ? new Html(' aria-current="page"') : ''}>${v.title}</a>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · payconform sandbox portal</title><link rel="stylesheet" href="/portal/assets/portal.css"></head>
<body><header><strong>payconform sandbox portal</strong> <span class="note">reference service; test data only</span><nav>${nav}</nav></header>
${o.flash ? html`<p class="flash ${o.flash.ok ? 'ok' : 'error'}" role="status">${o.flash.text}</p>` : ''}
<main data-view="${o.path}">${o.main}</main>
<script src="/portal/assets/portal.js"></script></body></html>`.text;
}

/** A POST form to a portal action with the CSRF token; `fields` are hidden inputs, `body` the visible controls. */
export function actionForm(
  action: string,
  csrf: string,
  fields: Readonly<Record<string, string>>,
  body: Html | string,
  attrs = '',
): Html {
  const hidden = Object.entries(fields).map(
    ([n, v]) => html`<input type="hidden" name="${n}" value="${v}">`,
  );
  return html`<form method="post" action="${action}"${new Html(attrs === '' ? '' : ` ${attrs}`)}><input type="hidden" name="csrf" value="${csrf}">${hidden}${body}</form>`;
}

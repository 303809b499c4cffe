// The portal's style sheet and its one small script: live views over server-sent events, and the refund dialog.

export const PORTAL_STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f7f9}
header{background:#15314b;color:#fff;padding:.6rem 1rem}header .note{opacity:.7;margin-left:.5rem}
nav{margin-top:.4rem}nav a{color:#cfe3ff;margin-right:1rem;text-decoration:none}nav a[aria-current]{color:#fff;font-weight:600;border-bottom:2px solid #fff}
main{padding:1rem}section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:.8rem 1rem;margin-bottom:1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border-bottom:1px solid #e6e8eb;padding:.3rem .4rem;text-align:left;vertical-align:top}
th{font-weight:600;background:#f1f3f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.flash{margin:.8rem 1rem;padding:.5rem .8rem;border-radius:4px}.flash.ok{background:#e3f6e8}.flash.error{background:#fde7e7}
.status{font-family:ui-monospace,monospace;font-size:12px}.muted{color:#6b7280}code,pre{font-family:ui-monospace,monospace;font-size:12px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.4rem}form.inline{display:inline}
label{display:inline-block;margin:.2rem .6rem .2rem 0}input[type=text],input[type=url],select{padding:.2rem}
.balance{font-size:1.4rem;font-weight:600}button{cursor:pointer}`;

export const PORTAL_SCRIPT = `
(() => {
  const main = document.querySelector('main');
  let pending = false, busy = false;
  const changed = (e) => e.type === 'checkbox' || e.type === 'radio' ? e.checked !== e.defaultChecked : e.tagName === 'SELECT' ? [...e.options].some((o) => o.selected !== o.defaultSelected) : e.value !== e.defaultValue;
  const editing = () => !!document.querySelector('dialog[open]') || (document.activeElement && main.contains(document.activeElement) && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)) || [...main.querySelectorAll('input,select,textarea')].some(changed);
  async function refresh() {
    if (busy) { pending = true; return; }
    if (editing()) { pending = true; return; }
    busy = true; pending = false;
    try {
      const url = new URL(location.href); url.searchParams.delete('flash'); url.searchParams.set('fragment', 'main');
      const r = await fetch(url, { headers: { accept: 'text/html' } });
      const html = r.ok ? await r.text() : undefined;
      // What was typed while the fragment loaded is kept: the refresh waits for the form to be sent or left. Asked
      // after the last await, so nothing typed between the question and the swap is lost.
      if (html !== undefined && editing()) pending = true;
      else if (html !== undefined) { const open = [...main.querySelectorAll('details[open]')].map((d) => d.id); main.innerHTML = html; for (const id of open) { const d = id && document.getElementById(id); if (d) d.open = true; } }
    } finally { busy = false; if (pending) setTimeout(refresh, 50); }
  }
  document.addEventListener('focusout', () => { if (pending) setTimeout(refresh, 50); });
  document.addEventListener('close', () => { if (pending) setTimeout(refresh, 50); }, true);
  document.addEventListener('click', (e) => {
    const opener = e.target.closest('[data-open-dialog]');
    if (opener) { const d = document.getElementById(opener.dataset.openDialog); if (d) d.showModal(); }
    const closer = e.target.closest('[data-close-dialog]');
    if (closer) closer.closest('dialog').close();
  });
  if ('EventSource' in window) {
    const events = new EventSource('/portal/events');
    events.addEventListener('change', () => refresh());
  }
})();`;

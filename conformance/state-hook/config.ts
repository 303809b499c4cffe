// The config's `stateHook` (docs/state-hook.md): a URL, HTTPS or plain HTTP on loopback as for targets elsewhere, with
// no credentials in it; or a command (program and arguments, run without a shell). Checked once, here.
import { isLoopbackHost } from '../../net/loopback.js';
import type { StateHookConfig } from './contract.js';

/** The hook as the config file gives it (the schema admits exactly one of the two members). */
export type StateHookFile = { url: string } | { command: [string, ...string[]] };

/** The config's hook, checked; or why it cannot be used. */
export function resolveStateHook(
  hook: StateHookFile | undefined,
  origin: string,
): StateHookConfig | undefined | string {
  if (hook === undefined) return undefined;
  if ('command' in hook) return { command: [...hook.command] };
  let url: URL;
  try {
    url = new URL(hook.url);
  } catch {
    return `${origin}: "stateHook.url" is not a URL`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(host)))
    return `${origin}: "stateHook.url" must be https, or http on loopback (127.0.0.1, ::1, localhost)`;
  if (url.username !== '' || url.password !== '')
    return `${origin}: "stateHook.url" must not carry credentials (a hook in a test environment needs none the audit could keep secret)`;
  return { url: url.href };
}

// The checks of the audit commands' option values: lists, integers, host:port, HTTP URLs, --fail-on, check ids.
import { UsageError } from '../io.js';
import type { Check } from '../../conformance/run/check.js';
import { parseHostPort } from '../../conformance/config/config.js';
import {
  ConformanceSetupError,
  selectChecks,
  type LevelFilter,
} from '../../conformance/run/engine.js';
import { FAIL_ON, type FailOn } from '../../conformance/run/result.js';

/** `--fail-on` values (`FAIL_ON`: repeatable, comma-separated). */
export function parseFailOn(values: readonly string[]): FailOn[] {
  const out = new Set<FailOn>();
  for (const item of values.flatMap(parseList)) {
    const v = FAIL_ON.find((f) => f === item.toLowerCase());
    if (v === undefined)
      throw new UsageError(
        `--fail-on must be ${FAIL_ON.slice(0, -1).join(', ')} or ${FAIL_ON.at(-1)} (got "${item}")`,
      );
    out.add(v);
  }
  return [...out];
}

/** A comma-separated option value: trimmed items, empty ones dropped. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** An integer option from 1 to `max` (undefined when not given); `message` is the usage error otherwise. */
export function parseIntegerOption(
  text: string | undefined,
  max: number,
  message: string,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw new UsageError(message);
  return Number(text);
}

/** A HOST:PORT option (IPv6 in brackets; port 0 means a free port). */
export function parseHostPortOption(value: string, flag: string): { host: string; port: number } {
  const parsed = parseHostPort(value);
  if (parsed === undefined)
    throw new UsageError(`${flag} must be HOST:PORT with a port up to 65535 (got "${value}")`);
  return parsed;
}

/**
 * An http or https URL option without credentials; `baseUrl` also refuses a query or fragment. `credentialsHint`
 * completes the message for a URL with user info (where the secret belongs instead).
 */
export function checkHttpUrl(
  value: string,
  flag: string,
  options: { readonly baseUrl?: boolean; readonly credentialsHint?: string } = {},
): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag} must be an http or https URL (got "${url.protocol}")`);
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `${flag} must not carry credentials in the URL${options.credentialsHint ?? ''}`,
    );
  if (options.baseUrl === true && (url.search !== '' || url.hash !== ''))
    throw new UsageError(`${flag} is a base URL: no query or fragment`);
  return value;
}

/** Refuses an unknown --only id (or a selection that is empty at this level) before anything is started. */
export function refuseUnknownChecks<Ctx>(
  checks: readonly Check<Ctx>[],
  only: readonly string[] | undefined,
  level: LevelFilter,
): void {
  try {
    selectChecks(checks, only, level);
  } catch (error) {
    if (error instanceof ConformanceSetupError) throw new UsageError(error.message);
    throw error;
  }
}

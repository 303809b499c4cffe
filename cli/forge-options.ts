// The flags of the drawn forgeries (check signature-forgeries, listed in command-table.ts): how long to draw and which
// seed, as a budget handed to the check on the audit context.
import {
  FORGERY_DEFAULTS,
  FORGERY_MAX_SECONDS,
} from '../conformance/checks/server/forgery-settings.js';
import type { ForgerySettings, ServerAuditContext } from '../conformance/checks/server/context.js';
import { UsageError } from './io.js';

const MAX_SEED = 2 ** 31 - 1;

/** `{ forgeries }` from the parsed flags, or nothing when neither flag is given. */
export function parseForgeOptions(values: Record<string, unknown>): {
  readonly forgeries?: ForgerySettings;
} {
  const secondsText = values['forge-seconds'] as string | undefined;
  if (
    secondsText !== undefined &&
    (!/^[0-9]{1,4}$/.test(secondsText) ||
      Number(secondsText) < 1 ||
      Number(secondsText) > FORGERY_MAX_SECONDS)
  )
    throw new UsageError(`--forge-seconds must be an integer from 1 to ${FORGERY_MAX_SECONDS}`);
  const seconds = secondsText !== undefined ? Number(secondsText) : undefined;
  const seedText = values['forge-seed'] as string | undefined;
  if (seedText !== undefined && (!/^[0-9]{1,10}$/.test(seedText) || Number(seedText) > MAX_SEED))
    throw new UsageError(`--forge-seed must be an integer from 0 to ${MAX_SEED}`);
  if (seconds === undefined && seedText === undefined) return {};
  // More seconds draw more: the run cap grows with them (the default's requests per second).
  const runs = Math.round((FORGERY_DEFAULTS.runs / FORGERY_DEFAULTS.seconds) * (seconds ?? 0));
  return {
    forgeries: {
      ...(seconds !== undefined ? { seconds, runs: Math.max(FORGERY_DEFAULTS.runs, runs) } : {}),
      ...(seedText !== undefined ? { seed: Number(seedText) } : {}),
    },
  };
}

/** The target with the forgeries' budget on its context. */
export function withForgeries<T extends { readonly context: ServerAuditContext }>(
  target: T,
  forgeries: ForgerySettings | undefined,
): T {
  return forgeries === undefined
    ? target
    : { ...target, context: { ...target.context, forgeries } };
}

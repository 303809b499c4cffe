// The explorers' budget flags, read once for `audit server` and `audit client --adapter`: --explore-runs,
// --explore-seconds and --explore-seed, each checked against its range (a usage error names it).
import { parseIntegerOption } from './audit-command.js';
import { UsageError } from './io.js';

export interface ExploreBudgetFlags {
  readonly runs?: number;
  readonly seconds?: number;
  readonly seed?: number;
}

export function parseExploreBudget(values: Record<string, unknown>): ExploreBudgetFlags {
  const runs = parseIntegerOption(
    values['explore-runs'] as string | undefined,
    100_000,
    '--explore-runs must be an integer from 1 to 100000',
  );
  const seconds = parseIntegerOption(
    values['explore-seconds'] as string | undefined,
    3_600,
    '--explore-seconds must be an integer from 1 to 3600',
  );
  const seedText = values['explore-seed'] as string | undefined;
  if (seedText !== undefined && !/^[0-9]{1,10}$/.test(seedText))
    throw new UsageError('--explore-seed must be an integer from 0 to 2147483647');
  const seed = seedText !== undefined ? Number(seedText) : undefined;
  if (seed !== undefined && seed > 2 ** 31 - 1)
    throw new UsageError('--explore-seed must be an integer from 0 to 2147483647');
  return {
    ...(runs !== undefined ? { runs } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

// payconform's own version, from its package.json (read through the package's self-reference, so the same code works
// from the TypeScript sources and from the compiled dist/).
import { createRequire } from 'node:module';

let cached: string | undefined;

/** The `version` of payconform's package.json ("0.0.0" if it cannot be read). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  try {
    const pkg = createRequire(import.meta.url)('payconform/package.json') as { version?: unknown };
    cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    cached = '0.0.0';
  }
  return cached;
}

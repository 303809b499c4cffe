// payconform's own version, from its package.json (read through the package's self-reference, so the same code works
// from the TypeScript sources and from the compiled dist/). The single executable's bundle has no package.json beside
// it: scripts/build-binary.ts writes the version in as PAYCONFORM_BUNDLED_VERSION.
import { createRequire } from 'node:module';

/** Replaced by the bundler with package.json's version in the single executable; undeclared everywhere else. */
declare const PAYCONFORM_BUNDLED_VERSION: string | undefined;

let cached: string | undefined;

/** The `version` of payconform's package.json ("0.0.0" if it cannot be read). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  if (typeof PAYCONFORM_BUNDLED_VERSION === 'string') return (cached = PAYCONFORM_BUNDLED_VERSION);
  try {
    const pkg = createRequire(import.meta.url)('payconform/package.json') as { version?: unknown };
    cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    cached = '0.0.0';
  }
  return cached;
}

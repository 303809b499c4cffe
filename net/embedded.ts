// Inside payconform's single executable (Node's single-executable applications, built by scripts/build-binary.ts) no
// file lies beside the code: what a command reads from the package (the vectors, the starter adapters, the verify
// pool's worker) is an asset embedded in the executable. This is the one place that asks whether the code runs there
// and reads those assets; from the sources or dist/ every answer is "not embedded" and callers read their files.
import type * as Sea from 'node:sea';

/** `node:sea` where this Node has it (20.12 and later): a Node without it cannot be running an executable. */
function sea(): typeof Sea | undefined {
  try {
    return process.getBuiltinModule?.('node:sea') as typeof Sea | undefined;
  } catch {
    return undefined;
  }
}

/** True inside the single executable. */
export function isEmbedded(): boolean {
  return sea()?.isSea() === true;
}

/**
 * The text of the asset `name` (its path in the repository, such as `vectors/index.json`) inside the single
 * executable; undefined outside it, or when the executable carries no such asset.
 */
export function embeddedAsset(name: string): string | undefined {
  const module = sea();
  if (module === undefined || !module.isSea()) return undefined;
  try {
    return module.getAsset(name, 'utf8');
  } catch {
    return undefined;
  }
}

// The requirements catalogue (`requirements.json`): every normative statement of the spec with a stable id.
import catalogueDocument from './requirements.json' with { type: 'json' };
import type { CheckRole, Level } from './run/check.js';

export type RequirementParty = 'server' | 'client' | 'receiver' | 'sender';

/** One normative statement of the spec: id, section, level, and the spec's words quoted. */
export interface Requirement {
  readonly id: string;
  readonly section: string;
  readonly level: Level;
  /** False where the spec says "not shown": recorded, never failed. */
  readonly shown: boolean;
  readonly appliesTo: readonly RequirementParty[];
  readonly text: string;
  readonly notes?: string;
  /** `payconform` marks a profile choice made where the spec is silent. */
  readonly source?: 'payconform';
  /** The spec's own words the requirement rests on: fragments each found verbatim in the spec (whitespace aside). */
  readonly quote?: readonly string[];
}

/**
 * The requirements catalogue: every normative statement of the spec with a stable id and its
 * quoted words.
 */
export interface Catalogue {
  readonly catalogueVersion: string;
  /** SHA-256 (hex) of the spec text whose words the quotes were last checked against. */
  readonly specSha256?: string;
  readonly requirements: readonly Requirement[];
  readonly byId: ReadonlyMap<string, Requirement>;
}

/** Requirement ids: an upper-case area prefix and words joined by hyphens, e.g. `SIG-VERIFY-CREATED-WINDOW`. */
export const REQUIREMENT_ID_PATTERN = /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$/;

/** Which catalogue parties an audit of each role covers (the server audit also audits the service as webhook sender). */
export const PARTIES_FOR_ROLE: Readonly<Record<CheckRole, readonly RequirementParty[]>> = {
  server: ['server', 'sender'],
  client: ['client'],
  receiver: ['receiver'],
};

/** Builds a catalogue from its JSON form, checking ids are well-formed and unique; throws a TypeError otherwise. */
export function createCatalogue(data: unknown): Catalogue {
  const doc = data as { catalogueVersion?: unknown; specSha256?: unknown; requirements?: unknown };
  if (
    typeof doc !== 'object' ||
    doc === null ||
    typeof doc.catalogueVersion !== 'string' ||
    !Array.isArray(doc.requirements)
  ) {
    throw new TypeError(
      'requirements catalogue: expected { catalogueVersion, requirements: [...] }',
    );
  }
  const byId = new Map<string, Requirement>();
  for (const entry of doc.requirements as Requirement[]) {
    if (!REQUIREMENT_ID_PATTERN.test(entry.id))
      throw new TypeError(`requirements catalogue: malformed id "${entry.id}"`);
    if (byId.has(entry.id))
      throw new TypeError(`requirements catalogue: duplicate id "${entry.id}"`);
    byId.set(entry.id, entry);
  }
  return {
    catalogueVersion: doc.catalogueVersion,
    ...(typeof doc.specSha256 === 'string' ? { specSha256: doc.specSha256 } : {}),
    requirements: doc.requirements as Requirement[],
    byId,
  };
}

let cached: Catalogue | undefined;

/** The catalogue shipped in `conformance/requirements.json` (a JSON import, so a bundle such as the single executable
 * carries it). */
export function loadCatalogue(): Catalogue {
  cached ??= createCatalogue(catalogueDocument as unknown);
  return cached;
}

/** Requirements an audit of this role is expected to cover. */
export function requirementsForRole(catalogue: Catalogue, role: CheckRole): Requirement[] {
  const parties = PARTIES_FOR_ROLE[role];
  return catalogue.requirements.filter((r) => r.appliesTo.some((p) => parties.includes(p)));
}

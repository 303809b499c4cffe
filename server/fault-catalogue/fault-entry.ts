// The one shape of a fault of the reference service's catalogue (server/faults.ts), shared by its parts by area.

/** A fault: its public name, the requirements it breaks, the rule it violates and what it does. */
export interface FaultEntry {
  readonly name: string;
  /** The ids (conformance/requirements.json) of the requirements the fault breaks. */
  readonly requirements: readonly [string, ...string[]];
  readonly breaks: string;
  readonly description: string;
  readonly how?: string;
}

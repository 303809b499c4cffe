// The test files that get a fresh worker each (vitest's `isolate`): those that change what the whole process shares
// and do not put it back (the verification pool's size, faked timers, mocked modules, stubbed globals). Every other
// file shares its worker's modules with the files before it, which saves the suite about a sixth of its CPU (417 s
// against 490 s, 234 s against 266 s of wall time on 2 vCPU, 2026-11-28). Kept true by test/tiers.test.ts: a test
// file that calls one of PROCESS_WIDE_CALLS is listed here.
export const OWN_WORKER: readonly string[] = [
  'test/audit-gates.test.ts',
  'test/child-process-roles.test.ts',
  'test/verify-pool-healing.test.ts',
  'test/verify-request-async.test.ts',
];

/** Calls that change state every later file in the worker would see. */
export const PROCESS_WIDE_CALLS: readonly RegExp[] = [
  /\bconfigureVerifyPool\(/,
  /\bvi\.(useFakeTimers|mock|doMock|stubEnv|stubGlobal|spyOn)\(/,
  /\bprocess\.chdir\(/,
];

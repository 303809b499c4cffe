// Bytes per remembered nonce in MemoryNonceStore (goal ≤ 120 B): each nonce is parsed out of its own
// Signature-Input header, as verifyRequest does, and recorded; the header is then dropped, and the retained heap
// is measured after a full GC. Run: npm run bench:nonce-memory [-- --count N] (needs --expose-gc, set by the script).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MemoryNonceStore, type NonceOwner } from '../src/profile/nonce-store.js';
import { parseSignatureInput } from '../src/signatures/signature-fields.js';

const COMPONENTS =
  '("@method" "@path" "@authority" "content-digest" "content-type" "content-length" "x-application-id" "x-application-secret")';

/** A fresh Signature-Input header string, as it arrives on the wire (one per request). */
function header(created: number): string {
  return `sig1=${COMPONENTS};created=${created};keyid="test-only-client-key-1";alg="ed25519";nonce="${randomUUID()}"`;
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined)
    throw new Error('run with node --expose-gc (npm run bench:nonce-memory does)');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

export function measureBytesPerNonce(
  count: number,
  applications: number,
): { bytesPerNonce: number; headerBytes: number } {
  const owners: NonceOwner[] = Array.from({ length: applications }, (_, i) => ({
    applicationId: `app-${i}`,
    keyId: 'key-1',
  }));
  const store = new MemoryNonceStore({
    maxEntries: count + 1,
    maxEntriesPerApplication: count + 1,
  });
  const now = 1_767_225_600;
  const before = heapAfterGc();
  for (let i = 0; i < count; i++) {
    const parsed = parseSignatureInput(header(now));
    if (!parsed.ok) throw new Error(parsed.message);
    const nonce = parsed.value.get('sig1')?.params.get('nonce');
    if (typeof nonce !== 'string') throw new Error('no nonce');
    store.checkAndRecord(nonce, now, now + 300, owners[i % applications]);
  }
  const after = heapAfterGc();
  if (store.size !== count) throw new Error(`store holds ${store.size}, expected ${count}`);
  return { bytesPerNonce: (after - before) / count, headerBytes: header(now).length };
}

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '200000' },
    applications: { type: 'string', default: '10' },
  },
});
const count = Number(values.count);
const applications = Number(values.applications);
if (!(Number.isInteger(count) && count > 0 && Number.isInteger(applications) && applications > 0))
  throw new Error('--count and --applications: positive integers');
const { bytesPerNonce, headerBytes } = measureBytesPerNonce(count, applications);
console.log(
  `MemoryNonceStore: ${bytesPerNonce.toFixed(1)} B per remembered nonce (${count} UUID nonces from ${applications} applications, ` +
    `each parsed from its own ${headerBytes}-byte Signature-Input header; Node ${process.version})`,
);

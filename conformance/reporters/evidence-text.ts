// Plain-text rendering of findings and evidence, shared by the console and JUnit reporters.
import type {
  BodyView,
  CheckResult,
  EvidenceView,
  GradedFinding,
  RequestView,
  ResponseView,
  RunSummary,
} from '../run/result.js';
import { EXPLORE_CHECK_ID } from '../explore/check-id.js';

const MAX_BODY_CHARS = 4000;

function bodyText(body: BodyView): string {
  if (body.bytes === 0) return '';
  if ((body.text ?? body.base64 ?? '') === '' && body.cut !== undefined) return `\n\n(${body.cut})`;
  const raw = body.text ?? `(binary, ${body.bytes} bytes, base64) ${body.base64 ?? ''}`;
  const cut =
    raw.length > MAX_BODY_CHARS
      ? `${raw.slice(0, MAX_BODY_CHARS)}\n... (${raw.length - MAX_BODY_CHARS} more characters)`
      : raw;
  const why = body.cut ?? (body.truncated ? 'body cut at the size limit' : undefined);
  return `\n\n${cut}${why !== undefined ? `\n... (${why})` : ''}`;
}

export function requestText(r: RequestView): string {
  return (
    [`${r.method} ${r.url}`, ...r.headers.map(([n, v]) => `${n}: ${v}`)].join('\n') +
    bodyText(r.body)
  );
}

export function responseText(r: ResponseView): string {
  return (
    [
      `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`,
      ...r.headers.map(([n, v]) => `${n}: ${v}`),
    ].join('\n') + bodyText(r.body)
  );
}

/** How a recorded exchange's curl command is introduced: it replays the exact bytes, so a signed one ages out. */
export const REPLAY_LABEL =
  'replay the exchange exactly as sent (a signed request is valid 300 s after "created" and its nonce once)';

export function evidenceText(e: EvidenceView): string {
  const parts: string[] = [];
  if (e.request) parts.push(`request sent:\n${requestText(e.request)}`);
  // The target's own logs find the exchange by it (docs/cli.md, "Finding an exchange in your server's logs").
  if (e.traceId) parts.push(`trace id: ${e.traceId}`);
  if (e.response) parts.push(`response received:\n${responseText(e.response)}`);
  if (e.reproduce) parts.push(`${REPLAY_LABEL}:\n${e.reproduce}`);
  if (e.notes) parts.push(`notes: ${e.notes}`);
  return parts.join('\n\n');
}

export function findingText(f: GradedFinding): string {
  const lines = [
    `[${f.outcome}${f.observed ? ', observed' : ''}${f.flaky ? ', flaky' : ''}${f.known !== undefined ? `, known (baseline): ${f.known.reason}` : ''}] ${f.message}${f.requirement ? ` (${f.requirement})` : ''}`,
  ];
  if (f.expected !== undefined) lines.push(`expected: ${f.expected}`);
  if (f.received !== undefined) lines.push(`received: ${f.received}`);
  if (f.evidence) lines.push(evidenceText(f.evidence));
  return lines.join('\n');
}

/** What a flaky check's second run (once more, alone) gave: its outcome and message, then its findings. */
export function againText(r: CheckResult): string | undefined {
  if (r.again === undefined) return undefined;
  const shown = r.again.findings.filter((f) => f.outcome !== 'pass' || f.observed);
  return [
    `run once more alone: ${r.again.outcome} (${r.again.message})`,
    ...shown.map((f) => findingText(f).replace(/^/gm, '  ')),
  ].join('\n');
}

/**
 * What the explorer did in a run, as the reports' first screen states it: its result and the command that replays
 * the shrunk sequence of a failure; `not-run` where a server audit that reached its checks left it out (no
 * exploring), undefined where it does not belong (a client or webhook audit, a stopped run, a deselection).
 */
export function explorerOf(
  summary: RunSummary,
): { readonly result: CheckResult; readonly replay?: string } | 'not-run' | undefined {
  const result = summary.results.find((r) => r.id === EXPLORE_CHECK_ID);
  if (result !== undefined) {
    const replay = result.findings.find((f) => f.evidence?.reproduce !== undefined)?.evidence
      ?.reproduce;
    return replay !== undefined ? { result, replay } : { result };
  }
  return summary.role === 'server' &&
    summary.stopped === undefined &&
    !summary.selection.deselected.includes(EXPLORE_CHECK_ID)
    ? 'not-run'
    : undefined;
}

// `payconform audit webhooks`: plays the service and sends valid and tampered signed webhooks to a merchant's
// receiver, which learns the public key from --serve-key, --public-key-out, or was configured for --signing-key.
import { showControls } from '../../conformance/reporters/printable.js';
import { randomUUID } from 'node:crypto';
import { writeFileAtomic } from '../../net/file-write.js';
import net from 'node:net';
import type { CliIo } from '../io.js';
import { EXIT, readKeyFile, UsageError } from '../io.js';
import {
  auditCommand,
  auditSteps,
  checkHttpUrl,
  parseAuditArgs,
  parseHostPortOption,
  parseIntegerOption,
  parseList,
  refuseUnknownChecks,
  selectionOptions,
  toolVersion,
  type AuditStepContext,
  type CommonAuditArgs,
  type PreparedAudit,
} from '../audit-command.js';
import { PayconformError } from '../../src/errors.js';
import {
  exportTrimmedPublicKeyPem,
  generateWebhookKeyPair,
  parseRsaPrivateKey,
  type ParsedRsaPrivateKey,
} from '../../src/webhooks/index.js';
import { runChecks, type LevelFilter } from '../../conformance/run/engine.js';
import { reachesLoopback } from '../../net/loopback.js';
import { createRedactor, type Redactor } from '../../conformance/report/redact.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import type { RunGate, RunSummary } from '../../conformance/run/result.js';
import {
  webhookChecks,
  WEBHOOK_KINDS,
  type WebhookAuditContext,
  type WebhookKind,
} from '../../conformance/checks/webhooks/index.js';
import {
  startKeyServer,
  type RunningKeyServer,
} from '../../conformance/checks/webhooks/key-server.js';
import { describeListenTls, resolveListenTls } from '../tls-options.js';
import { commandSpec, parseArgsOptions, usageLine } from '../command-table.js';
import { PROBE_TIMEOUT_MS, WEBHOOK_TIMEOUT_MS } from '../command-defaults.js';

const SPEC = commandSpec('audit webhooks');
const USAGE = usageLine(SPEC);

interface Parsed extends CommonAuditArgs {
  readonly targets: Partial<Record<WebhookKind, string>>;
  readonly signingKeyPath?: string;
  readonly kinds: readonly WebhookKind[];
  readonly serveKey?: { readonly host: string; readonly port: number };
  readonly publicKeyOut?: string;
  readonly timeoutMs: number;
  readonly allowLive: boolean;
  /** The TLS flags of the key server, as given. */
  readonly tlsFlags: Readonly<Record<string, unknown>>;
}

function parse(args: readonly string[]): Parsed {
  const { values, common } = parseAuditArgs(args, {
    usage: USAGE,
    secretHint:
      'give the signing key as a file (--signing-key FILE), never as a command-line value',
    options: parseArgsOptions(SPEC.options),
  });
  const kinds: WebhookKind[] = [];
  for (const k of typeof values['kinds'] === 'string'
    ? parseList(values['kinds'])
    : [...WEBHOOK_KINDS]) {
    if (!(WEBHOOK_KINDS as readonly string[]).includes(k))
      throw new UsageError(`--kinds: unknown kind "${k}" (kinds: ${WEBHOOK_KINDS.join(', ')})`);
    if (!kinds.includes(k as WebhookKind)) kinds.push(k as WebhookKind);
  }
  if (kinds.length === 0) throw new UsageError('--kinds needs at least one kind');
  const targets: Partial<Record<WebhookKind, string>> = {};
  let fallback: string | undefined;
  for (const t of (values['target'] as string[] | undefined) ?? []) {
    const m = /^(payment|payout|refund)=(.+)$/.exec(t);
    if (m) targets[m[1] as WebhookKind] = checkHttpUrl(m[2]!, `--target ${m[1]}=`);
    else if (fallback !== undefined)
      throw new UsageError('--target URL given twice; use --target KIND=URL for per-kind URLs');
    else fallback = checkHttpUrl(t, '--target');
  }
  for (const k of kinds) {
    targets[k] ??= fallback;
    if (targets[k] === undefined)
      throw new UsageError(
        `no receiver URL for ${k} webhooks: give --target URL or --target ${k}=URL\n${USAGE}`,
      );
  }
  const serveKey =
    typeof values['serve-key'] === 'string'
      ? parseHostPortOption(values['serve-key'], '--serve-key')
      : undefined;
  const timeoutMs = parseIntegerOption(
    values['timeout-ms'] as string | undefined,
    999_999,
    '--timeout-ms must be a positive integer up to 999999',
  );
  return {
    ...common,
    targets: Object.fromEntries(kinds.map((k) => [k, targets[k]!])),
    ...(typeof values['signing-key'] === 'string' ? { signingKeyPath: values['signing-key'] } : {}),
    kinds,
    ...(serveKey ? { serveKey } : {}),
    ...(typeof values['public-key-out'] === 'string'
      ? { publicKeyOut: values['public-key-out'] }
      : {}),
    timeoutMs: timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    allowLive: values['allow-live'] === true,
    tlsFlags: values,
  };
}

/** Reads the RSA signing key from a file (the key and its text, to mask); UsageError naming the file (never its content). */
async function readSigningKey(
  path: string,
): Promise<{ readonly key: ParsedRsaPrivateKey; readonly text: string }> {
  const text = readKeyFile(path, '--signing-key');
  try {
    return { key: parseRsaPrivateKey(text), text };
  } catch (error) {
    const code = error instanceof PayconformError ? error.code : 'KEY_FORMAT_INVALID';
    throw new UsageError(
      `--signing-key "${path}" is not a usable RSA private key (PEM, 2048 bits or more): ${code}`,
    );
  }
}

/** A TCP connection to the receiver's host and port, within the timeout; undefined when it connects. */
function probe(url: string, timeoutMs: number): Promise<string | undefined> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/** Runs the receiver checks for the given kinds (for tests and scripts). */
export function auditWebhookReceiver(
  context: WebhookAuditContext,
  kinds: readonly WebhookKind[],
  options: {
    only?: readonly string[];
    level?: LevelFilter;
    gate?: RunGate;
    blocking?: readonly string[];
    rerunCommand?: (checkId: string) => string;
    subscribers?: Parameters<typeof runChecks>[0]['subscribers'];
    redactor?: Redactor;
  } = {},
): Promise<RunSummary> {
  const targets = [...new Set(kinds.map((k) => context.targets[k]))].join(', ');
  return runChecks({
    checks: webhookChecks(kinds),
    context,
    role: 'receiver',
    target: targets,
    toolVersion: toolVersion(),
    catalogue: loadCatalogue(),
    concurrency: 4,
    checkTimeoutMs: 3 * context.requestTimeoutMs + 5_000,
    redactor: options.redactor ?? createRedactor(),
    ...selectionOptions(options),
    ...(options.blocking !== undefined ? { blocking: options.blocking } : {}),
  });
}

/** The command, leaving a report on every exit (see `auditCommand`). */
export const run = auditCommand(
  { command: 'audit webhooks', role: 'receiver', fileOptions: ['public-key-out'] },
  auditSteps({ spec: SPEC, parse, prepare }),
);

/** refuse what cannot run → the signing key → publish the public key → probe the receivers → the checks. */
async function prepare(
  parsed: Parsed,
  { io, output, selection, applicationSecret }: AuditStepContext,
): Promise<PreparedAudit | number> {
  refuseUnknownChecks(webhookChecks(parsed.kinds), parsed.only, parsed.level);
  await refuseUnusableTargets(parsed);
  // A receiver holds the application's secret and may echo it (an error page, a WWW-Authenticate header): every
  // secret this run can know of is masked in every output.
  const signingKeyFile =
    parsed.signingKeyPath !== undefined ? await readSigningKey(parsed.signingKeyPath) : undefined;
  const signingKey = signingKeyFile?.key ?? generateWebhookKeyPair().privateKey;
  const redactor = createRedactor({
    applicationSecret,
    privateKey: io.env['PAYCONFORM_PRIVATE_KEY'],
    otherSecrets: signingKeyFile !== undefined ? [signingKeyFile.text] : [],
  });
  const published = await publishPublicKey(
    parsed,
    exportTrimmedPublicKeyPem(signingKey),
    io,
    output.out,
  );
  if (typeof published === 'number') return published;
  const keyServer = published.keyServer;
  const release = async (): Promise<void> => {
    await keyServer?.close();
  };
  let unreachable: number | undefined;
  try {
    unreachable = await probeReceivers(parsed, io);
  } catch (error) {
    await release();
    throw error;
  }
  if (unreachable !== undefined) {
    await release();
    return unreachable;
  }
  const context: WebhookAuditContext = {
    targets: parsed.targets,
    signingKey,
    otherKey: generateWebhookKeyPair().privateKey,
    applicationId: io.env['PAYCONFORM_APPLICATION_ID']?.trim() || randomUUID(),
    requestTimeoutMs: parsed.timeoutMs,
  };
  return {
    run: (subscribers) =>
      auditWebhookReceiver(context, parsed.kinds, {
        ...selection(subscribers),
        redactor,
      }),
    afterRun: () => {
      if (keyServer !== undefined)
        output.out(`the public key was fetched ${keyServer.fetches()} time(s) during the run\n`);
    },
    release,
  };
}

/** Usage errors before anything starts: no way for the receiver to learn the key, or a receiver off loopback. */
async function refuseUnusableTargets(parsed: Parsed): Promise<void> {
  if (
    parsed.serveKey === undefined &&
    parsed.publicKeyOut === undefined &&
    parsed.signingKeyPath === undefined
  ) {
    throw new UsageError(
      `the receiver needs the public key: give --serve-key HOST:PORT, --public-key-out FILE, or --signing-key FILE (a key it was configured for)\n${USAGE}`,
    );
  }
  // Judged by the addresses each name resolves to, not the name: `localhost` may resolve elsewhere.
  const given = Object.values(parsed.targets).filter((u): u is string => u !== undefined);
  const reaches = await Promise.all(given.map((u) => reachesLoopback(u)));
  const live = given.filter((_, i) => !reaches[i]);
  if (live.length > 0 && !parsed.allowLive) {
    throw new UsageError(
      `refusing to send test payment, payout and refund webhooks to ${[...new Set(live.map((u) => new URL(u).host))].join(', ')}: not a loopback address, and a receiver that does not verify would act on them; pass --allow-live for a receiver you own`,
    );
  }
}

/** Writes the public key to --public-key-out and serves it on --serve-key, as asked; exit 2 when either fails. */
async function publishPublicKey(
  parsed: Parsed,
  trimmed: string,
  io: CliIo,
  out: (text: string) => void,
): Promise<{ readonly keyServer?: RunningKeyServer } | number> {
  if (parsed.publicKeyOut !== undefined) {
    try {
      writeFileAtomic(parsed.publicKeyOut, trimmed); // the one atomic writer
    } catch (error) {
      io.stderr(
        `payconform audit webhooks: cannot write --public-key-out "${parsed.publicKeyOut}": ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`,
      );
      return EXIT.usage;
    }
    out(
      `public key (trimmed PEM, as GET /.well-known/signature/pem serves it) written to ${parsed.publicKeyOut}\n`,
    );
  }
  if (parsed.serveKey === undefined) return {};
  const listenTls = await resolveListenTls(parsed.tlsFlags);
  if (listenTls !== undefined) out(`${describeListenTls(listenTls)}\n`);
  let keyServer: RunningKeyServer;
  try {
    keyServer = await startKeyServer(
      trimmed,
      parsed.serveKey.host,
      parsed.serveKey.port,
      listenTls?.tls,
    );
  } catch (error) {
    io.stderr(
      `payconform audit webhooks: cannot serve the key on ${parsed.serveKey.host}:${parsed.serveKey.port} (${(error as NodeJS.ErrnoException).code ?? String(error)})\n`,
    );
    return EXIT.usage;
  }
  out(`public key served at ${keyServer.url}\n`);
  return { keyServer };
}

/** A TCP connection to each receiver within the timeout (at most 5 s); exit 3 naming the first that has none. */
async function probeReceivers(parsed: Parsed, io: CliIo): Promise<number | undefined> {
  for (const url of new Set(Object.values(parsed.targets))) {
    const problem = await probe(url!, Math.min(parsed.timeoutMs, PROBE_TIMEOUT_MS));
    if (problem !== undefined) {
      io.stderr(
        `payconform audit webhooks: ${showControls(`receiver ${url} is unreachable (${problem})`)}\n`,
      );
      return EXIT.unreachable;
    }
  }
  return undefined;
}

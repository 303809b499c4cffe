// `payconform audit client`: serves the service's API as a strict verifying endpoint that the client under test
// calls (optionally running the client with --exec), then reports every rule per request by requirement id.
import { showControls } from '../../conformance/reporters/printable.js';
import { RECORDED_REQUESTS } from '../../conformance/run/flaky.js';
import type { CliIo } from '../io.js';
import { EXIT, UsageError } from '../io.js';
import {
  auditCommand,
  auditSteps,
  parseAuditArgs,
  parseHostPortOption,
  parseIntegerOption,
  refuseUnknownChecks,
  selectionOptions,
  toolVersion,
  type AuditStepContext,
  type CommonAuditArgs,
  type PreparedAudit,
} from '../audit-command.js';
import { parseEd25519PublicKey } from '../../src/keys/index.js';
import type { Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { loadConfig, type ConformanceConfig } from '../../conformance/config/config.js';
import { runChecks, type LevelFilter } from '../../conformance/run/engine.js';
import { createRedactor, type Redactor } from '../../conformance/report/redact.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import type { RunGate, RunSummary } from '../../conformance/run/result.js';
import {
  clientChecks,
  type ClientAuditContext,
  type ClientExchange,
} from '../../conformance/checks/client/index.js';
import type { ClientCredentials } from '../../conformance/client-audit/evaluate-request.js';
import {
  serveClientAudit,
  type ClientAuditServeOptions,
} from '../../conformance/client-audit/serve-client-audit.js';
import { describeListenTls, resolveListenTls } from '../tls-options.js';
import { commandSpec, parseArgsOptions, usageLine } from '../command-table.js';
import { startReferenceBackend } from '../client-audit-backend.js';
import { CLIENT_AUDIT_TIMEOUT_MS } from '../command-defaults.js';
import { parseSdkAuditArgs, prepareSdkAudit, type SdkAuditArgs } from './audit-client-sdk.js';

const SPEC = commandSpec('audit client');
const USAGE = usageLine(SPEC);

interface Parsed extends CommonAuditArgs {
  readonly listen?: { readonly host: string; readonly port: number };
  readonly configPath?: string;
  readonly exec?: string;
  readonly timeoutMs?: number;
  readonly ignoreClientExit: boolean;
  /** The TLS flags as given (resolved once the config is read). */
  readonly tlsFlags: Readonly<Record<string, unknown>>;
  /** With --adapter: the SDK explorer's flags (audit-client-sdk.ts). */
  readonly sdk?: SdkAuditArgs;
}

function parse(args: readonly string[]): Parsed {
  const { values, common } = parseAuditArgs(args, {
    usage: USAGE,
    secretHint:
      'secrets are read only from the environment (PAYCONFORM_APPLICATION_SECRET), never from command-line arguments',
    options: parseArgsOptions(SPEC.options),
  });
  const listen =
    typeof values['listen'] === 'string'
      ? parseHostPortOption(values['listen'], '--listen')
      : undefined;
  if (values['timeout'] !== undefined && values['timeout-ms'] !== undefined)
    throw new UsageError('give --timeout-ms only (--timeout SECONDS is its old form)');
  const timeoutS = parseIntegerOption(
    values['timeout'] as string | undefined,
    86_400,
    '--timeout must be a whole number of seconds from 1 to 86400 (prefer --timeout-ms)',
  );
  const timeoutMs =
    parseIntegerOption(
      values['timeout-ms'] as string | undefined,
      86_400_000,
      '--timeout-ms must be an integer from 1 to 86400000',
    ) ?? (timeoutS !== undefined ? timeoutS * 1000 : undefined);
  const sdk = parseSdkAuditArgs(values);
  const exec = values['exec'];
  if (typeof exec === 'string' && exec.trim() === '')
    throw new UsageError('--exec needs a command');
  return {
    ...common,
    ...(listen ? { listen } : {}),
    ...(typeof values['config'] === 'string' ? { configPath: values['config'] } : {}),
    ...(typeof exec === 'string' ? { exec } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ignoreClientExit: values['ignore-client-exit'] === true,
    tlsFlags: values,
    ...(sdk !== undefined ? { sdk } : {}),
  };
}

/** Runs the client checks over what the serving phase recorded. */
export function auditClientExchanges(
  context: ClientAuditContext,
  redactor: Redactor,
  options: {
    only?: readonly string[];
    level?: LevelFilter;
    gate?: RunGate;
    blocking?: readonly string[];
    rerunCommand?: (checkId: string) => string;
    subscribers?: Parameters<typeof runChecks>[0]['subscribers'];
  } = {},
): Promise<RunSummary> {
  return runChecks({
    checks: clientChecks,
    context,
    role: 'client',
    // A failure is never run once more: the checks judge what the client already sent (conformance/run/flaky.ts).
    rerunFailures: RECORDED_REQUESTS,
    target: `calls to ${context.baseUrl}`,
    toolVersion: toolVersion(),
    catalogue: loadCatalogue(),
    redactor,
    ...selectionOptions(options),
    ...(options.blocking !== undefined ? { blocking: options.blocking } : {}),
  });
}

/** One line per exchange while the client runs. */
function exchangeLine(e: ClientExchange): string {
  const r = e.examined.request;
  const broken = [
    ...new Set(e.examined.outcomes.filter((o) => o.outcome === 'violation').map((o) => o.rule)),
  ];
  const path = r.url.replace(/^[a-z]+:\/\/[^/]*/i, '');
  return `  #${e.examined.index} ${r.method} ${path.slice(0, 100)} -> ${e.response?.status ?? '?'}${broken.length > 0 ? `  (${broken.length} rule(s) broken: ${broken.join(', ')})` : '  (all rules pass)'}\n`;
}

/** Splits a stream into lines and passes each through `emit` (a partial last line waits for the next chunk). */
function lineWriter(emit: (line: string) => void): {
  write: (text: string) => void;
  flush: () => void;
} {
  let pending = '';
  return {
    write(text) {
      pending += text;
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        emit(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      if (pending.length > 64 * 1024) {
        emit(pending);
        pending = '';
      }
    },
    flush() {
      if (pending !== '') emit(pending);
      pending = '';
    },
  };
}

/** The command, leaving a report on every exit (see `auditCommand`). */
export const run = auditCommand(
  { command: 'audit client', role: 'client' },
  auditSteps({ spec: SPEC, parse, prepare }),
);

/** The client's credentials and the config's test data, and the redactor that masks them. */
interface ResolvedClient {
  readonly config: ConformanceConfig;
  readonly credentials: ClientCredentials;
  readonly redactor: Redactor;
}

/** config and credentials → serve the endpoint (running the client) → the checks over what it sent. */
async function prepare(parsed: Parsed, step: AuditStepContext): Promise<PreparedAudit | number> {
  if (parsed.sdk !== undefined)
    return prepareSdkAudit(parsed.sdk, parsed.only, step, parsed.verbose);
  const { io, output, selection } = step;
  refuseUnknownChecks(clientChecks, parsed.only, parsed.level); // an unknown --only id is refused before the client runs
  const resolved = await resolveClient(parsed, io);
  if (typeof resolved === 'number') return resolved;
  const context = await serveClient(parsed, resolved, io, output.out);
  if (typeof context === 'number') return context;
  if (context.commandNote !== undefined) output.out(`${context.commandNote}\n`);
  return {
    run: (subscribers) =>
      auditClientExchanges(context, resolved.redactor, {
        ...selection(subscribers),
        // The client's own exit status is part of the verdict: a client that crashes half-way has not shown it works.
        ...(context.commandFailure !== undefined && !parsed.ignoreClientExit
          ? { blocking: [`${context.commandFailure} (--ignore-client-exit accepts this)`] }
          : {}),
      }),
  };
}

/** The config, and the client's credentials from it and the environment; exit 2 naming what is missing or unusable. */
async function resolveClient(parsed: Parsed, io: CliIo): Promise<ResolvedClient | number> {
  const loaded = await loadConfig(parsed.configPath, io.env);
  if (!loaded.ok) {
    io.stderr(`payconform audit client: ${showControls(loaded.message, { multiline: true })}\n`);
    return EXIT.usage;
  }
  const config = loaded.config;
  const secret = config.applicationSecret?.reveal();
  const publicKeyText = io.env['PAYCONFORM_PUBLIC_KEY'];
  const missing = [
    ...(config.applicationId === undefined
      ? ['PAYCONFORM_APPLICATION_ID (or "applicationId" in the config)']
      : []),
    ...(config.keyId === undefined ? ['PAYCONFORM_KEY_ID (or "keyId" in the config)'] : []),
    ...(secret === undefined ? ['PAYCONFORM_APPLICATION_SECRET'] : []),
    ...(publicKeyText === undefined || publicKeyText.trim() === ''
      ? ['PAYCONFORM_PUBLIC_KEY']
      : []),
  ];
  if (missing.length > 0) {
    io.stderr(
      `payconform audit client: the client's credentials are needed to verify what it sends; not set: ${missing.join(', ')}\n`,
    );
    return EXIT.usage;
  }
  const redactor = createRedactor({
    applicationSecret: secret,
    privateKey: io.env['PAYCONFORM_PRIVATE_KEY'],
  });
  let publicKey: Ed25519PublicKey;
  try {
    publicKey = parseEd25519PublicKey(publicKeyText!.trim());
  } catch (error) {
    io.stderr(
      `payconform audit client: PAYCONFORM_PUBLIC_KEY is not a usable Ed25519 public key (base64 raw or PEM): ${redactor.redactText(error instanceof Error ? error.message : String(error))}\n`,
    );
    return EXIT.usage;
  }
  const credentials: ClientCredentials = {
    applicationId: config.applicationId!,
    applicationSecret: secret!,
    keyId: config.keyId!,
    publicKey,
    ...(config.merchantId !== undefined ? { merchantId: config.merchantId } : {}),
  };
  return { config, credentials, redactor };
}

/**
 * Serves the verifying endpoint (running the client with --exec) until the client exits, the time is up or Ctrl-C:
 * what it recorded, or exit 2 when the endpoint cannot listen.
 */
async function serveClient(
  parsed: Parsed,
  resolved: ResolvedClient,
  io: CliIo,
  out: (text: string) => void,
): Promise<ClientAuditContext | number> {
  const listenTls = await resolveListenTls(parsed.tlsFlags);
  if (listenTls !== undefined) out(`${describeListenTls(listenTls)}\n`);
  const clientOut = lineWriter((line) =>
    io.stderr(`client| ${showControls(resolved.redactor.maskLiterals(line))}\n`),
  );
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    return await serveClientAudit(
      clientServeOptions(parsed, resolved, {
        io,
        out,
        listenTls,
        onClientOutput: (text) => clientOut.write(text),
        signal: controller.signal,
      }),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      io.stderr(
        `payconform audit client: cannot listen on ${parsed.listen?.host ?? '127.0.0.1'}:${parsed.listen?.port ?? 0} (${code})\n`,
      );
      return EXIT.usage;
    }
    throw error;
  } finally {
    clientOut.flush();
    process.off('SIGINT', onSigint);
  }
}

/** The endpoint's options from the flags: where it listens, TLS, the client to run (or how long to serve), progress. */
function clientServeOptions(
  parsed: Parsed,
  { config, credentials, redactor }: ResolvedClient,
  hooks: {
    readonly io: CliIo;
    readonly out: (text: string) => void;
    readonly listenTls: Awaited<ReturnType<typeof resolveListenTls>>;
    readonly onClientOutput: (text: string) => void;
    readonly signal: AbortSignal;
  },
): ClientAuditServeOptions {
  const { out, listenTls } = hooks;
  const timeoutMs = parsed.timeoutMs ?? CLIENT_AUDIT_TIMEOUT_MS;
  return {
    credentials,
    startBackend: startReferenceBackend,
    ...(config.payInAccountSelector !== undefined
      ? { payInAccountSelector: config.payInAccountSelector }
      : {}),
    ...(parsed.listen ? { listen: parsed.listen } : {}),
    ...(listenTls !== undefined
      ? {
          tls: listenTls.tls,
          ...(listenTls.caFile !== undefined ? { tlsCaFile: listenTls.caFile } : {}),
        }
      : {}),
    ...(parsed.exec !== undefined
      ? {
          exec: {
            command: parsed.exec,
            env: hooks.io.env,
            timeoutMs,
            onOutput: (_s: 'stdout' | 'stderr', text: string) => hooks.onClientOutput(text),
          },
        }
      : parsed.timeoutMs !== undefined
        ? { serveMs: timeoutMs }
        : {}),
    signal: hooks.signal,
    onListening: (info) => {
      out(
        `payconform audit client: verifying endpoint at ${info.baseUrl} (settled payment ${info.settledPayment.paymentId}, amount ${info.settledPayment.amount}; pay-in account "${info.payInAccountSelector}")\n`,
      );
      if (parsed.exec === undefined)
        out(
          parsed.timeoutMs !== undefined
            ? `serving for ${parsed.timeoutMs} ms\n`
            : 'serving until Ctrl-C\n',
        );
    },
    onExchange: (e) => out(redactor.redactText(exchangeLine(e))),
  };
}

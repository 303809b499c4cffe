// Part of the option table (cli/command-table.ts): the options of serve: the reference service.
import { SANDBOX_BASE_PATH } from '../../net/sandbox-protocol.js';
import { EXIT } from '../../conformance/exit-code-table.js';
import { SERVE_DEFAULTS } from '../command-defaults.js';
import type { CommandSpec } from './option-spec.js';
import { HELP_OPTION, TLS_LISTEN_OPTION_SPECS } from './shared-options.js';

export const serve: CommandSpec = {
  name: 'serve',
  summary:
    'run the reference service (spec endpoints, sandbox, signed webhooks; --fault for self-tests)',
  synopsis: '[--port N] [--credentials-out FILE] [--write-audit-config FILE] [options]',
  description: [
    'Runs the reference service until Ctrl-C: the spec endpoints, /sandbox/, signed webhooks and the sandbox',
    'portal at /portal. Credentials come from the environment (all five, or none) or --config; otherwise',
    'development credentials are generated: their ids are printed, and the secret and private key are written',
    'only where --credentials-out says (mode 0600), never to standard output.',
  ],
  options: [
    {
      name: 'host',
      type: 'string',
      value: 'HOST',
      default: SERVE_DEFAULTS.host,
      help: 'address to bind',
    },
    {
      name: 'port',
      type: 'string',
      value: 'N',
      default: String(SERVE_DEFAULTS.port),
      help: 'port (0: a free one)',
    },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      help: 'service config (schemas/reference-service-config.schema.json); flags override it',
    },
    {
      name: 'credentials-out',
      type: 'string',
      value: 'FILE',
      help: 'write generated development credentials there (mode 0600, shell `export` lines)',
    },
    {
      name: 'write-audit-config',
      type: 'string',
      value: 'FILE',
      help: 'once listening, write a ready `audit server --config` file (no secrets)',
    },
    {
      name: 'fault',
      type: 'string',
      multiple: true,
      value: 'NAME',
      help: 'break the service on purpose (loopback only; repeatable; see --list-faults)',
    },
    { name: 'list-faults', type: 'boolean', help: 'list the faults and exit' },
    {
      name: 'variant',
      type: 'string',
      value: 'clean|alt|lenient',
      default: SERVE_DEFAULTS.variant,
      help: 'alt takes the other permitted choice wherever the spec is silent; lenient accepts every signed request the spec permits (RFC 8941 parse)',
    },
    {
      name: 'webhook-url',
      type: 'string',
      value: 'URL',
      help: 'send every kind of webhook there (or PAYCONFORM_WEBHOOK_URL)',
    },
    { name: 'payment-webhook-url', type: 'string', value: 'URL', help: 'payment webhooks only' },
    { name: 'payout-webhook-url', type: 'string', value: 'URL', help: 'payout webhooks only' },
    { name: 'refund-webhook-url', type: 'string', value: 'URL', help: 'refund webhooks only' },
    {
      name: 'signing-key',
      type: 'string',
      value: 'FILE',
      default: 'an RSA key generated at start',
      help: 'RSA private key (PEM) that signs the webhooks',
    },
    {
      name: 'lifecycle-ms',
      type: 'string',
      value: 'N',
      default: 'off: only the /sandbox/ advance endpoints move them',
      help: 'advance payouts and refunds to their next status every N ms',
    },
    {
      name: 'sandbox-path',
      type: 'string',
      value: 'PATH|off',
      default: SANDBOX_BASE_PATH,
      help: "serve payconform's /sandbox/ helpers at PATH, or not at all (off); at another PATH the audit sees a target without them, while a state hook (docs/state-hook.md) can still make payments there",
    },
    {
      name: 'require-signature-all',
      type: 'boolean',
      help: 'require a signature on commit, cancel and refund too (always with --variant alt)',
    },
    { name: 'quiet', type: 'boolean', help: 'no request log' },
    {
      name: 'redis-url',
      type: 'string',
      value: 'URL',
      default: 'in memory',
      help: 'share nonces and state on Redis: redis://, rediss://, unix://, or a cluster as redis+cluster://host:port,host:port (a URL with a password only in PAYCONFORM_REDIS_URL)',
    },
    {
      name: 'workers',
      type: 'string',
      value: 'N',
      default: String(SERVE_DEFAULTS.workers),
      help: 'N processes sharing the port (node:cluster); N > 1 requires --redis-url',
    },
    { name: 'no-portal', type: 'boolean', help: 'do not serve the sandbox portal' },
    {
      name: 'portal-any-host',
      type: 'boolean',
      help: 'serve the portal to any Host, not only loopback names',
    },
    ...TLS_LISTEN_OPTION_SPECS,
    HELP_OPTION,
  ],
  environment: [
    [
      'PAYCONFORM_APPLICATION_ID, PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_KEY_ID, PAYCONFORM_PUBLIC_KEY, PAYCONFORM_MERCHANT_ID',
      'the application to register (all or none)',
    ],
    ['PAYCONFORM_REDIS_URL', 'as --redis-url'],
  ],
  exit: [
    [EXIT.ok, 'stopped by SIGINT or SIGTERM'],
    [EXIT.usage, 'usage or config error'],
  ],
  example:
    'payconform serve --webhook-url http://127.0.0.1:8099/hooks --credentials-out dev.env --write-audit-config audit.json',
};

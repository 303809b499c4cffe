// SIG-HTTPS-ONLY in the client audit: with `--tls` the endpoint speaks HTTPS, and plain HTTP on a second port whose URL
// the client command is given too, so a client that sends a signed request to an `http://` URL is seen doing it.
import type { Check, Finding } from '../../run/check.js';
import type { ClientAuditContext, ClientExchange } from './context.js';

const REQUIREMENT = 'SIG-HTTPS-ONLY';

const isSigned = (e: ClientExchange): boolean =>
  e.examined.request.headers.some(([name]) =>
    ['signature', 'signature-input'].includes(name.toLowerCase()),
  );

const describe = (e: ClientExchange): string =>
  `#${e.examined.index} ${e.examined.request.method} ${e.examined.request.url.replace(/^[a-z]+:\/\/[^/]*/i, '')}`;

export const httpsOnly: Check<ClientAuditContext> = {
  id: 'client-https-only',
  title: 'Signed requests are sent over HTTPS only',
  area: 'transport',
  requirements: [REQUIREMENT],
  level: 'MUST',
  appliesTo: 'client',
  async run(ctx) {
    if (ctx.tls !== true)
      return [
        {
          outcome: 'n/a',
          message:
            'the audit served plain HTTP only; run `payconform audit client --tls` to judge the transport',
        },
      ];
    if (ctx.exchanges.length === 0)
      return [{ outcome: 'n/a', message: 'no request arrived, nothing to judge' }];
    const findings: Finding[] = [];
    const plain = ctx.exchanges.filter((e) => e.transport === 'plain');
    for (const e of plain.filter(isSigned)) {
      findings.push({
        outcome: 'violation',
        requirement: REQUIREMENT,
        message: `${describe(e)}: a signed request was sent over plain HTTP`,
        expected: 'https',
        received: 'http',
      });
    }
    for (const e of plain.filter((x) => !isSigned(x))) {
      // The spec states "HTTPS only" for signed requests; for the unsigned calls it is not shown, so this is recorded.
      findings.push({
        outcome: 'observation',
        message: `${describe(e)}: an unsigned request (application secret included) was sent over plain HTTP`,
      });
    }
    const overTls = ctx.exchanges.filter((e) => e.transport === 'tls').length;
    if (overTls > 0)
      findings.push({
        outcome: 'pass',
        requirement: REQUIREMENT,
        message: `${overTls} request(s) arrived over TLS`,
      });
    return findings;
  },
};

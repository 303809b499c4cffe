// Transport (spec, Authentication / Other rules: "HTTPS only"): a target reached over plain http:// on a
// non-loopback address warns. A warning, not a failure: the URL the runner was given says how the runner reaches
// the target (a test proxy, a tunnel), not which scheme the service offers its users; loopback targets over plain
// HTTP are accepted for local testing.
import { pass, violation } from '../../run/check.js';
import { isLoopbackTarget } from '../../../net/loopback.js';
import { serverCheck } from './context.js';

const httpsOnly = serverCheck({
  id: 'https-only',
  title: 'the target is reached over HTTPS (plain HTTP only on loopback, for local testing)',
  area: 'transport',
  requirements: ['SIG-HTTPS-ONLY'],
  level: 'SHOULD',
  async run(ctx) {
    const url = new URL(ctx.baseUrl);
    if (url.protocol === 'https:')
      return [
        pass(`the target is reached over HTTPS (${url.host})`, { requirement: 'SIG-HTTPS-ONLY' }),
      ];
    if (isLoopbackTarget(ctx.baseUrl)) {
      return [
        pass(`${url.host} is a loopback address: plain HTTP is accepted for local testing`, {
          requirement: 'SIG-HTTPS-ONLY',
        }),
      ];
    }
    return [
      violation(
        `the target ${url.host} is not a loopback address and is reached over plain ${url.protocol.replace(':', '')}`,
        {
          requirement: 'SIG-HTTPS-ONLY',
          level: 'SHOULD',
          expected: 'an https:// target (the spec: "HTTPS only")',
          received: `${url.protocol}//${url.host}`,
        },
      ),
    ];
  },
});

export const transportChecks = [httpsOnly] as const;

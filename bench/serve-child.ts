// A `payconform serve` child process of a benchmark: ready once its banner names the port and says "Ctrl-C stops.";
// stopped with SIGTERM (SIGKILL after 10 s).
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';

export interface ServeChild {
  readonly port: number;
  stop(): Promise<void>;
}

/** Waits for `child` (started as `serve ARGS`) to be ready; rejects if it exits first or is not ready in time. */
export function awaitServeReady(
  child: ChildProcess,
  args: readonly string[],
  timeoutMs: number,
): Promise<ServeChild> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve ${args.join(' ')} did not start in ${timeoutMs / 1000} s:\n${text}`));
    }, timeoutMs);
    const add = (d: Buffer) => {
      text += d.toString();
      const m = /listening on https?:\/\/[^:\s]+:(\d+)/.exec(text);
      if (m === null || !text.includes('Ctrl-C stops.')) return;
      clearTimeout(timer);
      resolve({ port: Number(m[1]), stop: () => stopChild(child) });
    };
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${text}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * POSTs one signed payout to a serve child on loopback over `agent` (keep-alive); resolves with the status, or 0 when
 * no answer came within 10 s. Never rejects.
 */
export function postPayout(
  port: number,
  agent: http.Agent,
  headers: http.OutgoingHttpHeaders,
  body: Uint8Array,
): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/payouts', headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

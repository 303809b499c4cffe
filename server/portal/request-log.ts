// The portal's Requests view: the last API requests with their answer, the secret masked before anything is kept.
import { getFieldValues, type HttpRequest } from '../../src/http/message.js';
import type { AnsweredRequest } from '../context.js';

/** The mask string of every payconform output (conformance/report/redact.ts REDACTED; the server does not import conformance/). */
export const MASK = '[REDACTED]';

/** A request as the portal keeps it: secret already masked, body capped. */
export interface LoggedRequest extends AnsweredRequest {
  readonly id: number;
  readonly signed: boolean;
  /** The body was longer than kept. */
  readonly truncated: boolean;
}

const MAX_BODY = 64 * 1024;

export class RequestLog {
  private readonly entries: LoggedRequest[] = [];
  /** The unmasked signed requests, only for the signature diagnosis (which masks the secret in what it says). */
  private readonly raw = new Map<number, HttpRequest>();
  private nextId = 1;

  constructor(private readonly max = 200) {}

  add(request: AnsweredRequest): void {
    const headers = request.http.headers.map(
      ([n, v]) => [n, n.toLowerCase() === 'x-application-secret' ? MASK : v] as [string, string],
    );
    const body = request.http.body;
    const entry: LoggedRequest = {
      ...request,
      http: {
        ...request.http,
        headers,
        body: body.length > MAX_BODY ? body.slice(0, MAX_BODY) : body,
      },
      id: this.nextId++,
      signed:
        getFieldValues(headers, 'signature').length > 0 ||
        getFieldValues(headers, 'signature-input').length > 0,
      truncated: body.length > MAX_BODY,
    };
    this.entries.push(entry);
    if (entry.signed && request.status >= 400 && !entry.truncated)
      this.raw.set(entry.id, request.http);
    if (this.entries.length > this.max)
      for (const dropped of this.entries.splice(0, this.entries.length - this.max))
        this.raw.delete(dropped.id);
  }

  /** The request as received (secret included) of a rejected signed request, for its diagnosis. */
  rawSigned(id: number): HttpRequest | undefined {
    return this.raw.get(id);
  }

  /** Newest first. */
  list(): readonly LoggedRequest[] {
    return [...this.entries].reverse();
  }

  get(id: number): LoggedRequest | undefined {
    return this.entries.find((e) => e.id === id);
  }
}

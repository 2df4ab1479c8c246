import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface Received {
  method: string;
  /** The request's path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it arrived (what signatures are computed over). */
  raw: string;
  body: any;
  /** Milliseconds since the epoch when the request had fully arrived. */
  at: number;
  /** The sender closed the connection before the answer was sent (it timed out or died). */
  abandoned: boolean;
}

type Answer = number | 'hang' | { status: number; headers: Record<string, string> };

/**
 * What the receiver does with the n-th request (0-based): answer with a status, never answer, or
 * answer once a promise settles (a slow receiver).
 */
export type Behaviour = (index: number, received: Received) => Answer | Promise<Answer>;

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests have arrived, or fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real webhook receiver on 127.0.0.1 that records every request. */
export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // keep the text
      }
      const entry: Received = { method: request.method!, url: request.url!, headers: request.headers, raw, body, at: Date.now(), abandoned: false };
      response.once('close', () => {
        if (!response.writableFinished) entry.abandoned = true;
      });
      const index = received.push(entry) - 1;
      waiters.splice(0).forEach((wake) => wake());
      void Promise.resolve(behaviour(index, entry)).then((answer) => {
        if (answer === 'hang') {
          hanging.push(response);
          return;
        }
        if (response.destroyed) return;
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{"received":true}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;

  async function waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${received.length} of ${count} deliveries within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return received.slice(0, count);
  }

  return {
    url,
    received,
    waitFor,
    close: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((response) => response.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Real receivers live on 127.0.0.1, and the retry schedule is shortened so tests see all of it. The
 * time-out stays long enough that a busy test machine does not turn a slow 200 into a retry.
 */
export const WEBHOOK_TEST_ENV = {
  PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true',
  PARLEY_WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms',
  PARLEY_WEBHOOK_TIMEOUT: '2s',
};

interface Api {
  request<T = any>(method: string, path: string, options?: { body?: unknown; token?: string }): Promise<{ status: number; body: T }>;
}

/** Points a site's webhook at `url` for `events`; answers the generated secret. */
export async function subscribe(parley: Api, site: { site_id: string; api_key: string }, url: string, events: string[]): Promise<string> {
  const response = await parley.request('PATCH', `/api/sites/${site.site_id}`, {
    token: site.api_key,
    body: { webhook_url: url, webhook_events: events },
  });
  if (response.status !== 200) throw new Error(`subscribing failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.generated_webhook_secret;
}

/** Polls the delivery log until `done` holds for it. */
export async function waitForLog(
  parley: Api,
  site: { site_id: string; api_key: string },
  done: (deliveries: any[]) => boolean,
  { query = '', timeoutMs = 10_000 } = {},
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries${query}`, { token: site.api_key });
    if (log.status !== 200) throw new Error(`delivery log: ${log.status} ${JSON.stringify(log.body)}`);
    if (done(log.body.deliveries)) return log.body.deliveries;
    if (Date.now() > deadline) throw new Error(`delivery log never got there: ${JSON.stringify(log.body.deliveries)}`);
    await sleep(50);
  }
}

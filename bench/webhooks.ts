import { createServer, type Server } from 'node:http';
import { CLI_ACTOR } from '../src/audit/audit.ts';
import { resolveCaller } from '../src/auth/caller.ts';
import { createComment } from '../src/comments/service.ts';
import { connect, type Db } from '../src/db/connect.ts';
import { bootstrap } from '../src/sites/bootstrap.ts';
import { findSite } from '../src/sites/repository.ts';
import { updateSite } from '../src/sites/service.ts';
import type { Seeded } from './seed.ts';

/** A webhook receiver on 127.0.0.1: one that answers 200 at once, or one that never answers. */
export interface Receiver {
  url: string;
  received: number;
  first: number;
  last: number;
  close(): Promise<void>;
}

export async function startReceiver(kind: 'fast' | 'hanging'): Promise<Receiver> {
  const receiver = { url: '', received: 0, first: 0, last: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    request.resume();
    if (kind === 'hanging') return;
    request.on('end', () => {
      const now = performance.now();
      if (receiver.received === 0) receiver.first = now;
      receiver.received += 1;
      receiver.last = now;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

async function pointWebhook(db: Db, siteId: string, url: string): Promise<void> {
  const site = (await findSite(db.kysely, siteId))!;
  await updateSite(db.kysely, site, { webhook_url: url, webhook_events: ['comment.created'] }, { allowPrivateWebhookTargets: true }, CLI_ACTOR);
}

async function postMany(db: Db, apiKey: string, siteId: string, count: number): Promise<void> {
  const key = await resolveCaller(db, apiKey, '127.0.0.1');
  const thread = `https://blog.example.com/posts/webhooks-${siteId}`;
  for (let start = 0; start < count; start += 32) {
    const batch = Array.from({ length: Math.min(32, count - start) }, (_, i) => `Webhook benchmark comment ${start + i}.`);
    await Promise.all(batch.map((content) => createComment(db, key, { thread_url: thread, site_id: siteId, content })));
  }
}

/**
 * Queues `count` comment.created deliveries for the seeded site towards `fast` (and, with `hanging`,
 * `hangingCount` for a second site whose receiver never answers) through the service functions,
 * while no Parley runs, so the measured process only delivers.
 */
export async function queueDeliveries(
  databaseUrl: string,
  seeded: Seeded,
  fast: Receiver,
  count: number,
  hanging?: { receiver: Receiver; count: number },
): Promise<void> {
  const db = connect({ databaseUrl, databasePoolSize: 10, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    await pointWebhook(db, seeded.siteId, fast.url);
    await postMany(db, seeded.apiKey, seeded.siteId, count);
    if (hanging) {
      const other = await bootstrap(db.kysely, { siteName: 'Hanging receiver', plan: 'business' });
      await pointWebhook(db, other.site_id, hanging.receiver.url);
      await postMany(db, other.api_key, other.site_id, hanging.count);
    }
  } finally {
    await db.close();
  }
}

/** Waits until `count` deliveries arrived, or `seconds` passed; returns deliveries per second. */
export async function deliveryRate(receiver: Receiver, count: number, seconds: number): Promise<{ rate: number; received: number }> {
  const deadline = Date.now() + seconds * 1000;
  while (receiver.received < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const span = (receiver.last - receiver.first) / 1000;
  return { rate: span > 0 ? (receiver.received - 1) / span : 0, received: receiver.received };
}

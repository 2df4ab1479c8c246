import { freshDatabaseUrl } from '../helper.ts';
import { sleep, startReceiver, WEBHOOK_TEST_ENV } from '../receiver.ts';
import { seedDatabase, spawnServer, withDatabase } from './child-server.ts';

export interface CrashReport {
  cycles: number;
  acknowledged: number;
  lostComments: number;
  lostEvents: number;
  /** Acknowledged comments whose comment.created webhook never reached the receiver. */
  lostDeliveries: number;
  cleanRestarts: number;
}


/**
 * Kills `parley serve` with SIGKILL in the middle of bursts of comment creation, `cycles` times on
 * one database, restarting it each time; then checks that every comment acknowledged with a 201 is
 * there (read through the API), with its comment.created event (the outbox) and its webhook
 * delivered to the site's receiver (at least once).
 */
export async function crashCycles(cycles: number, writers = 4): Promise<CrashReport> {
  const database = await freshDatabaseUrl();
  const seeded = await seedDatabase(database.url);
  const receiver = await startReceiver();
  const env = { ...WEBHOOK_TEST_ENV, PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0' };
  const acknowledged: string[] = [];
  let cleanRestarts = 0;
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      const server = await spawnServer(database.url, env);
      if (cycle === 0) {
        await fetch(`${server.url}/api/sites/${seeded.site_id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${seeded.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ webhook_url: receiver.url, webhook_events: ['comment.created'] }),
        });
      } else {
        const ready = await fetch(`${server.url}/readyz`);
        if (ready.status === 200) cleanRestarts += 1;
      }
      let stop = false;
      const burst = async (writer: number) => {
        for (let n = 0; !stop; n++) {
          try {
            const response = await fetch(`${server.url}/v1/comments`, {
              method: 'POST',
              headers: { authorization: `Bearer ${seeded.api_key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ site_id: seeded.site_id, thread_url: `https://crash.example.com/${cycle}`, content: `writer ${writer} #${n}` }),
            });
            if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
          } catch {
            return; // the server died under this request: not acknowledged
          }
        }
      };
      const bursts = Array.from({ length: writers }, (_, i) => burst(i));
      await sleep(300 + Math.random() * 500);
      server.process.kill('SIGKILL');
      await server.exited;
      stop = true;
      await Promise.all(bursts);
    }
    const server = await spawnServer(database.url, env);
    if ((await fetch(`${server.url}/readyz`)).status === 200) cleanRestarts += 1;
    let lostComments = 0;
    for (let i = 0; i < acknowledged.length; i += 20) {
      const reads = await Promise.all(acknowledged.slice(i, i + 20).map((id) => fetch(`${server.url}/v1/comments/${id}`, { headers: { authorization: `Bearer ${seeded.api_key}` } })));
      lostComments += reads.filter((read) => read.status !== 200).length;
    }
    const delivered = () => new Set(receiver.received.map((r) => (r.body as { data: { comment: { id: string } } }).data.comment.id));
    const deadline = Date.now() + 60_000;
    while (acknowledged.some((id) => !delivered().has(id)) && Date.now() < deadline) await sleep(200);
    const lostDeliveries = acknowledged.filter((id) => !delivered().has(id)).length;
    server.process.kill('SIGTERM');
    await server.exited;
    const evented = await withDatabase(database.url, async (db) => {
      const rows = await db.kysely.selectFrom('events').select('data').where('type', '=', 'comment.created').execute();
      return new Set(rows.map((row) => (JSON.parse(row.data) as { comment: { id: string } }).comment.id));
    });
    const lostEvents = acknowledged.filter((id) => !evented.has(id)).length;
    return { cycles, acknowledged: acknowledged.length, lostComments, lostEvents, lostDeliveries, cleanRestarts };
  } finally {
    await receiver.close();
    await database.drop();
  }
}

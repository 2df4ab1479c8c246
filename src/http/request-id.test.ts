import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, parleysPerTest } from '../../test/helper.ts';
import { seedDatabase, spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let server: ChildServer;

beforeAll(async () => {
  database = await freshDatabaseUrl();
  await seedDatabase(database.url);
  server = await spawnServer(database.url, { LOG_LEVEL: 'info', TRUST_PROXY: '127.0.0.1' });
}, 60_000);
afterAll(async () => {
  server.process.kill('SIGTERM');
  await server.exited;
  await database.drop();
});

/** The JSON log lines of the child server that carry `id`, once its answer's line has arrived. */
async function linesOf(id: string): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 5000;
  const lines = () => server.output().split('\n').filter((line) => line.includes(id)).map((line) => JSON.parse(line) as Record<string, unknown>);
  while (!lines().some((line) => line.msg === 'request completed') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return lines();
}

describe('request ids', () => {
  it("takes a trusted proxy's X-Request-Id, answers with it and puts it on every log line of the request", async () => {
    const response = await fetch(`${server.url}/v1/comments/cmt_missing`, { headers: { 'x-request-id': 'edge-7f3a:42' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('edge-7f3a:42');
    const lines = await linesOf('edge-7f3a:42');
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    for (const line of lines) expect(line.reqId).toBe('edge-7f3a:42');
  });

  it('makes a random id when the proxy sent none, or one that could break a log line', async () => {
    const sent: Array<Record<string, string>> = [{}, { 'x-request-id': 'two words' }, { 'x-request-id': 'x'.repeat(200) }];
    for (const headers of sent) {
      const id = (await fetch(`${server.url}/healthz`, { headers })).headers.get('x-request-id');
      expect(id).toMatch(UUID);
    }
  });
});

describe('request ids without TRUST_PROXY', () => {
  const start = parleysPerTest();

  it("ignores the client's X-Request-Id: anyone could send one", async () => {
    const parley = await start();
    const first = await parley.request('GET', '/healthz', { headers: { 'x-request-id': 'chosen-by-client' } });
    const second = await parley.request('GET', '/healthz');
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });
});

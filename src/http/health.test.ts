import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parleysPerTest, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('health endpoints', () => {
  it('answers /healthz while the process is up and /readyz while the database answers', async () => {
    expect(await parley.request('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await parley.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });
});

describe('readiness', () => {
  const start = parleysPerTest();

  it('fails while the database is unreachable', async () => {
    const cut = await start();
    await cut.app.db.close();
    expect(await cut.request('GET', '/readyz')).toMatchObject({ status: 503, body: { status: 'database unreachable' } });
    expect(await cut.request('GET', '/healthz')).toMatchObject({ status: 200 });
  });
});

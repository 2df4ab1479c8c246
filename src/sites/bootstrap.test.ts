import { describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect } from '../db/connect.ts';
import { toCount } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { bootstrapDemoIfEmpty } from './bootstrap.ts';

// Each instance is a pool of its own, as in separate processes. On SQLite a lock wait blocks the
// whole process, so this race needs PostgreSQL; test/scale/multi-instance.test.ts starts two real
// processes on one empty database.
describe.skipIf(dialectName !== 'postgres')('the demo site on an empty database', () => {
  it('is created by exactly one of eight instances starting together', async () => {
    const database = await freshDatabaseUrl();
    const instances = Array.from({ length: 8 }, () => connect(loadConfig({ DATABASE_URL: database.url })));
    try {
      await migrateToLatest(instances[0]);
      const demos = await Promise.all(instances.map((db) => bootstrapDemoIfEmpty(db)));
      expect(demos.filter((demo) => demo !== null)).toHaveLength(1);
      const { accounts } = await instances[0].kysely.selectFrom('accounts').select((eb) => eb.fn.countAll().as('accounts')).executeTakeFirstOrThrow();
      expect(toCount(accounts as number)).toBe(1);
      expect(await bootstrapDemoIfEmpty(instances[1])).toBeNull();
    } finally {
      await Promise.all(instances.map((db) => db.close()));
      await database.drop();
    }
  });
});

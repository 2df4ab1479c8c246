import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';
import { dialectName } from '../../test/helper.ts';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

// The database holds SSO, webhook and form secrets: other users of the machine read none of it.
describe.skipIf(dialectName !== 'sqlite')('the SQLite files of a running server', () => {
  let root: string;
  let server: ChildServer | undefined;
  afterEach(async () => {
    server?.process.kill('SIGKILL');
    await server?.exited;
    rmSync(root, { recursive: true, force: true });
  });

  it('are readable by their owner alone, in a data directory Parley creates for its owner alone', async () => {
    root = mkdtempSync(join(tmpdir(), 'parley-modes-'));
    const dataDir = join(root, 'data');
    const database = join(dataDir, 'parley.db');
    server = await spawnServer(`sqlite:${database}`);
    const files = [database, `${database}-wal`, `${database}-shm`];
    expect(files.filter((file) => !existsSync(file))).toEqual([]);
    expect(Object.fromEntries([dataDir, ...files].map((path) => [path, modeOf(path)]))).toEqual({
      [dataDir]: '700',
      [database]: '600',
      [`${database}-wal`]: '600',
      [`${database}-shm`]: '600',
    });
  });
});

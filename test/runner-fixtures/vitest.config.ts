import { defineConfig } from 'vitest/config';

/** test/runner.test.ts runs `npm test` on these files alone; the suite's own globs leave them out. */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.fixture.ts'],
    pool: 'forks',
  },
});

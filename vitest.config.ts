import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files wait on servers, timers and the browser rather than compute: two files at once
    // on a two-core machine (Vitest's default would run one there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

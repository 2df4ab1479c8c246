import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

// madge has no type declarations; its API is the one function used here.
const madge = createRequire(import.meta.url)('madge') as (path: string, config: { fileExtensions: string[] }) => Promise<{ circular(): string[][] }>;

it('has no import circle in src/, type-only imports included', async () => {
  // As `npx madge --circular --extensions ts src` reports them: each circle as the files along it.
  const graph = await madge('src', { fileExtensions: ['ts'] });
  expect(graph.circular()).toEqual([]);
}, 60_000);

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes, CLIENT_TYPES_PATH } from '../../src/dashboard/client/generate.ts';

describe('the types @parley/client ships (and the dashboard is typed with)', () => {
  it('match the OpenAPI document of this code (run `npm run generate:client` after changing a route)', async () => {
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8') === (await clientTypes()), `${CLIENT_TYPES_PATH} is stale: run npm run generate:client`).toBe(true);
  });
});

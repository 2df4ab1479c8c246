import { expect, it } from 'vitest';
import { describeMatrix, MATRIX } from './matrix.ts';
import { NO_RATE_LIMITS } from './world.ts';

const world = describeMatrix('the permission matrix', NO_RATE_LIMITS);

it('has a row for every operation in the OpenAPI document', async () => {
  const document = (await world().parley.request('GET', '/openapi.json')).body;
  const operations = Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
  expect(MATRIX.map(([endpoint]) => endpoint).sort()).toEqual(expect.arrayContaining(operations.sort()));
});

import { beforeAll, it } from 'vitest';

beforeAll(() => {
  throw new Error('thrown in beforeAll');
});

it('never runs', () => undefined);

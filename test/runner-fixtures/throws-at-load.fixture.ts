import { it } from 'vitest';

throw new Error('thrown while the file loads');

it('is never collected', () => undefined);

import { describe, expect, it } from 'vitest';
import { crashCycles } from './crash.ts';

describe('a server killed with SIGKILL during write bursts', () => {
  it('loses no acknowledged comment, no event and no webhook of one, and restarts cleanly on the same database', async () => {
    const report = await crashCycles(Number(process.env.PARLEY_CRASH_CYCLES ?? 2));
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(report).toMatchObject({ lostComments: 0, lostEvents: 0, lostDeliveries: 0, cleanRestarts: report.cycles });
  }, 120_000);
});

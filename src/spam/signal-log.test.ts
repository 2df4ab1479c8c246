import { describe, expect, it } from 'vitest';
import { SignalLog, type Signal } from './signal-log.ts';

const MINUTE = 60_000;
let n = 0;
const signal = (at: number, fields: Partial<Signal> = {}): Signal => ({
  commentId: `cmt_${++n}`,
  siteId: 'site_a',
  threadKey: 'https://blog.example.com/a',
  authorKey: `usr_${n}`,
  ipRange: null,
  textHash: `text ${n}`,
  at,
  ...fields,
});

describe('the spam signal log', () => {
  it("finds a window full once its threshold's comments fall inside it, by site, range and thread", () => {
    const log = new SignalLog(86_400_000, 1000);
    const start = Date.parse('2026-11-25T10:00:00Z');
    for (let i = 0; i < 3; i++) log.add(signal(start + i * 1000, { ipRange: '198.51.100.0/24' }));
    const now = start + 3000;
    expect(log.full('site_a', 'site', 3, MINUTE, now)).toBe(true);
    expect(log.full('site_a', 'site', 4, MINUTE, now)).toBe(false);
    expect(log.full('site_a', { range: '198.51.100.0/24' }, 3, MINUTE, now)).toBe(true);
    expect(log.full('site_a', { range: '203.0.113.0/24' }, 1, MINUTE, now)).toBe(false);
    expect(log.full('site_a', { thread: 'https://blog.example.com/b' }, 1, MINUTE, now)).toBe(false);
    expect(log.full('site_b', 'site', 1, MINUTE, now)).toBe(false);
    // A minute after the first, it has left the window: two remain.
    expect(log.full('site_a', 'site', 3, MINUTE, start + MINUTE + 1)).toBe(false);
    expect(log.full('site_a', 'site', 2, MINUTE, start + MINUTE + 1)).toBe(true);
  });

  it('lists the copies of a text newest first, since a time, and forgets them after the kept time', () => {
    const log = new SignalLog(10 * MINUTE, 1000);
    const start = Date.parse('2026-11-25T10:00:00Z');
    const copies = [0, 1, 2].map((i) => signal(start + i * MINUTE, { textHash: 'buy now' }));
    for (const copy of copies) log.add(copy);
    log.add(signal(start + 3 * MINUTE));
    expect([...log.withText('site_a', 'buy now', start + MINUTE)].map((s) => s.commentId)).toEqual([copies[2].commentId, copies[1].commentId]);
    expect(log.lastWithText('site_a', 'buy now')).toBe(copies[2]);
    expect(log.has(copies[0])).toBe(true);
    // A signal ten minutes after the first lets the first go.
    log.add(signal(start + 10 * MINUTE + 1));
    expect(log.has(copies[0])).toBe(false);
    expect(log.size).toBe(4);
  });

  it('keeps at most its capacity, letting the oldest go', () => {
    const log = new SignalLog(86_400_000, 100);
    const start = Date.parse('2026-11-25T10:00:00Z');
    const all = Array.from({ length: 250 }, (_, i) => signal(start + i, { ipRange: `10.0.${i % 3}.0/24` }));
    for (const one of all) log.add(one);
    expect(log.size).toBe(100);
    expect(log.has(all[149])).toBe(false);
    expect(log.has(all[150])).toBe(true);
    expect(log.full('site_a', 'site', 100, MINUTE, start + 250)).toBe(true);
    expect(log.full('site_a', 'site', 101, MINUTE, start + 250)).toBe(false);
  });

  it('takes back a signal whose comment was not written, wherever it stands', () => {
    const log = new SignalLog(86_400_000, 100);
    const start = Date.parse('2026-11-25T10:00:00Z');
    const [first, second, third] = [0, 1, 2].map((i) => signal(start + i, { textHash: 'same', threadKey: 'https://blog.example.com/t' }));
    log.add(first);
    log.add(second);
    log.add(third);
    log.remove(second);
    expect([...log.withText('site_a', 'same', 0)]).toEqual([third, first]);
    expect(log.full('site_a', { thread: 'https://blog.example.com/t' }, 3, MINUTE, start + 3)).toBe(false);
    log.remove(first);
    log.remove(third);
    expect(log.size).toBe(0);
    expect(log.lastWithText('site_a', 'same')).toBeUndefined();
  });
});

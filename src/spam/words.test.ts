import { describe, expect, it } from 'vitest';
import { normalisedText } from './text.ts';
import { listedWordIn } from './words.ts';

describe('word lists', () => {
  it('find a listed word in its disguises, and not inside other words', () => {
    const words = ['casino', 'lottery', 'free money'];
    const found = (text: string) => listedWordIn(words, normalisedText(text));
    for (const text of ['CASINO', 'c4sino', 'c@sino', 'caaasino', 'c\u200Basino', 'ｃａｓｉｎｏ', '𝐜𝐚𝐬𝐢𝐧𝐨', 'c a s i n o', 'c.a.s.i.n.o', 'c-a-s-i-n-o']) {
      expect(found(`play ${text} tonight`), text).toBe('casino');
    }
    expect(found('l0ttery tickets')).toBe('lottery');
    expect(found('free   money')).toBe('free money');
    for (const text of ['Casablanca', 'an occasional visit', 'Cassino is a town', 'a b c', 'Lucas in October']) expect(found(text), text).toBeNull();
  });

  it('take bounded time at the limits: 500 words of 50 characters on a 10,000-character comment', () => {
    const words = Array.from({ length: 500 }, (_, i) => `${'w'.repeat(40)}${i.toString(36).padStart(10, 'q')}`);
    const texts = ['lorem ipsum dolor sit amet '.repeat(370), 'w'.repeat(10_000), `${'w '.repeat(5_000)}`];
    listedWordIn(words, 'warm up: the matcher is built once per list');
    for (const text of texts) {
      const started = performance.now();
      expect(listedWordIn(words, text)).toBeNull();
      const took = performance.now() - started;
      console.log(`${text.slice(0, 12)}…: ${took.toFixed(1)} ms`);
      // Measured about 5-20 ms; the bound leaves room for a busy machine.
      expect(took).toBeLessThan(500);
    }
  });
});

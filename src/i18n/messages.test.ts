import { describe, expect, it } from 'vitest';
import { formatMessage, translationProblems } from './messages.ts';

const english = '{count, plural, one {# new reply on {page}} other {# new replies on {page}}}';

describe('checking a translation', () => {
  it('accepts one with the same placeholders and every plural form of its language', () => {
    const russian = '{count, plural, one {# новый ответ на {page}} few {# новых ответа на {page}} many {# новых ответов на {page}} other {# нового ответа на {page}}}';
    expect(translationProblems(english, russian, 'ru')).toEqual([]);
    expect(formatMessage('ru', russian, { count: 3, page: 'X' })).toBe('3 новых ответа на X');
    expect(formatMessage('ru', russian, { count: 5, page: 'X' })).toBe('5 новых ответов на X');
  });

  it('finds the plural forms CLDR requires that are missing', () => {
    const russian = '{count, plural, one {# ответ на {page}} other {# ответов на {page}}}';
    expect(translationProblems(english, russian, 'ru')).toEqual(['lacks the plural categories ru needs: count: few, count: many']);
    const arabic = '{count, plural, one {رد} other {ردود}} {page}';
    expect(translationProblems(english, arabic, 'ar')).toEqual(['lacks the plural categories ar needs: count: few, count: many, count: two, count: zero']);
  });

  it('finds placeholders that are added, lost or misspelled, and text that does not parse', () => {
    expect(translationProblems('Reply to {name}', 'Antworten an {nom}', 'de')).toEqual(['uses {nom}, which the English does not', 'lacks {name}, which the English uses']);
    expect(translationProblems('Reply to {name}', 'Antworten an {name', 'de')[0]).toMatch(/^is not ICU MessageFormat/);
  });

  it('formats numbers in the language’s own way', () => {
    expect(formatMessage('de', '{count, plural, one {# Kommentar} other {# Kommentare}}', { count: 1234 })).toBe('1.234 Kommentare');
    expect(formatMessage('ar', '{count, number}', { count: 12 })).toBe('12');
  });
});

import { describe, expect, it } from 'vitest';
import { LOCALES, direction, matchLocale, pickLocale } from './locales.ts';

describe('language tags', () => {
  it('speaks 40 languages besides English', () => {
    expect(LOCALES.length).toBeGreaterThanOrEqual(41);
    expect(LOCALES).toContain('en');
  });

  it('matches tags as browsers do', () => {
    expect(matchLocale('de-DE')).toBe('de');
    expect(matchLocale('DE_at')).toBe('de');
    expect(matchLocale('pt')).toBe('pt-BR');
    expect(matchLocale('pt-PT')).toBe('pt-PT');
    expect(matchLocale('pt-br')).toBe('pt-BR');
    expect(matchLocale('zh-CN')).toBe('zh-Hans');
    expect(matchLocale('zh-SG')).toBe('zh-Hans');
    expect(matchLocale('zh-TW')).toBe('zh-Hant');
    expect(matchLocale('zh-HK')).toBe('zh-Hant');
    expect(matchLocale('zh-Hant-HK')).toBe('zh-Hant');
    expect(matchLocale('zh')).toBe('zh-Hans');
    expect(matchLocale('nb-NO')).toBe('nb');
    expect(matchLocale('no')).toBe('nb');
    expect(matchLocale('en-GB')).toBe('en');
  });

  it('gives nothing for a language it does not speak, so the next source decides', () => {
    expect(matchLocale('xx-YY')).toBeNull();
    expect(matchLocale('')).toBeNull();
    expect(matchLocale(null)).toBeNull();
    expect(pickLocale('tlh', 'fr-CA', 'de')).toBe('fr');
    expect(pickLocale('tlh', undefined)).toBe('en');
  });

  it('knows which languages are written right to left', () => {
    expect(['ar', 'fa', 'he', 'ur'].map(direction)).toEqual(['rtl', 'rtl', 'rtl', 'rtl']);
    expect(direction('de')).toBe('ltr');
  });
});

import { describe, expect, it } from 'vitest';
import { requestLocale } from './request.ts';

const asking = (header?: string) => requestLocale({ headers: header === undefined ? {} : { 'accept-language': header } });

describe("a request's language", () => {
  it('is the first tag of Accept-Language that Parley speaks, in the order given', () => {
    expect(asking('de-DE')).toBe('de');
    expect(asking('tlh, fr-CA;q=0.9, en;q=0.8')).toBe('fr');
    expect(asking('zh-TW,zh;q=0.9')).toBe('zh-Hant');
    expect(asking(' pt ; q=1 ')).toBe('pt-BR');
    // Order decides, not q-values.
    expect(asking('ru;q=0.1, de;q=0.9')).toBe('ru');
  });

  it('is null when the header is absent or names nothing Parley speaks, so the next source decides', () => {
    expect(asking()).toBeNull();
    expect(asking('')).toBeNull();
    expect(asking('*')).toBeNull();
    expect(asking('tlh, xx-YY;q=0.5, *;q=0.1')).toBeNull();
  });
});

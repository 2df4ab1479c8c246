import { describe, expect, it } from 'vitest';
import { DIALOG_ENGLISH } from './dialog-strings.ts';
import { ENGLISH, problemMessage, retryAfterSeconds, setStrings, stringsFor } from './strings.ts';

const problem = (code: string, extra: Partial<Parameters<typeof problemMessage>[0]> = {}) => ({ status: 400, code, detail: '', retryAfter: null, ...extra });

describe('widget messages', () => {
  it('tells a rate-limited reader how long to wait', () => {
    expect(problemMessage(problem('rate_limited', { status: 429, retryAfter: 42 }), ENGLISH)).toBe('You are doing that too often. Try again in 42 s.');
    expect(problemMessage(problem('rate_limited', { status: 429 }), ENGLISH)).toBe(ENGLISH.error_rate_limited_later);
    // Sign-in mails are limited per hour: a long wait reads in minutes.
    expect(problemMessage(problem('rate_limited', { status: 429, retryAfter: 1_750 }), ENGLISH)).toBe('You are doing that too often. Try again in 30 minutes.');
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('17')).toBe(17);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 1, 0)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(retryAfterSeconds(null)).toBeNull();
  });

  it('names the field a validation error is about, and explains bans', () => {
    const invalid = problem('validation_failed', { detail: 'x', errors: [{ path: 'body/content', message: 'must not be empty' }] });
    expect(problemMessage(invalid, ENGLISH)).toBe('Please check your text: content must not be empty');
    expect(problemMessage(problem('banned', { status: 403 }), ENGLISH)).toBe(ENGLISH.error_banned);
    expect(problemMessage(problem('internal', { status: 500, detail: 'boom' }), ENGLISH)).toContain('boom');
  });

  it('replaces strings per language, falling back to the base language and then English', () => {
    setStrings('fr', { reply: 'Répondre' });
    expect(stringsFor('fr-CA')).toMatchObject({ lang: 'fr', strings: { reply: 'Répondre', edit: 'Edit' } });
    expect(stringsFor('de').lang).toBe('en');
  });

  it("keeps the dialogs' words apart from the widget's: a dialog lays the widget's over its own, so a shared key would change its words", () => {
    expect(Object.keys(ENGLISH).filter((key) => key in DIALOG_ENGLISH)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import DIALOG_ENGLISH from '../locales/dialogs/en.json' with { type: 'json' };
import ENGLISH from '../locales/en.json' with { type: 'json' };
import { problemMessage, retryAfterSeconds, setStrings, translator, wordsFor, type WidgetKey } from './strings.ts';

const problem = (code: string, extra: Partial<Parameters<typeof problemMessage>[0]> = {}) => ({ status: 400, code, detail: '', retryAfter: null, ...extra });
const english = translator<WidgetKey>('en', wordsFor('en', {}, {}));

describe('widget messages', () => {
  it('tells a rate-limited reader how long to wait, in plural forms', () => {
    expect(problemMessage(problem('rate_limited', { status: 429, retryAfter: 42 }), english)).toBe('You are doing that too often. Try again in 42 seconds.');
    expect(problemMessage(problem('rate_limited', { status: 429, retryAfter: 1 }), english)).toBe('You are doing that too often. Try again in 1 second.');
    expect(problemMessage(problem('rate_limited', { status: 429 }), english)).toBe(ENGLISH.error_rate_limited_later);
    // Sign-in mails are limited per hour: a long wait reads in minutes.
    expect(problemMessage(problem('rate_limited', { status: 429, retryAfter: 1_750 }), english)).toBe('You are doing that too often. Try again in 30 minutes.');
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('17')).toBe(17);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 1, 0)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(retryAfterSeconds(null)).toBeNull();
  });

  it("names the field a validation error is about, in the server's words, and explains bans", () => {
    const invalid = problem('validation_failed', { detail: 'x', errors: [{ path: 'body/content', message: 'must not be empty' }] });
    expect(problemMessage(invalid, english)).toBe('Please check your text: content must not be empty');
    expect(problemMessage(problem('banned', { status: 403 }), english)).toBe(ENGLISH.error_banned);
    expect(problemMessage(problem('internal', { status: 500, detail: 'boom' }), english)).toContain('boom');
  });

  it('formats counts with the plural rules and digits of the language', () => {
    expect(english('newComments', { count: 1 })).toBe('Show 1 new comment');
    expect(english('newComments', { count: 1234 })).toBe('Show 1,234 new comments');
    const russian = translator<WidgetKey>('ru', wordsFor('ru', { newComments: '{count, plural, one {# новый} few {# новых} many {# новых комментариев} other {# нового}}' }, {}));
    expect(russian('newComments', { count: 5 })).toBe('5 новых комментариев');
    // A key the locale's file lacks stays English.
    expect(russian('heading')).toBe(ENGLISH.heading);
  });

  it("lays the site's words over the locale file's, and a page's over both, for that language alone", () => {
    setStrings('de-AT', { reply: 'Antworten!', replyTo: 'Antwort an {name}', loadMore: '{count, plural, other {#}}' });
    const german = translator<WidgetKey>('de', wordsFor('de', { reply: 'Antworten', edit: 'Bearbeiten', post: 'Senden' }, { edit: 'Ändern' }));
    expect([german('reply'), german('edit'), german('post'), german('heading')]).toEqual(['Antworten!', 'Ändern', 'Senden', 'Comments']);
    // A page's simple placeholders work; a plural it cannot read leaves the message as it was.
    expect(german('replyTo', { name: 'Ada' })).toBe('Antwort an Ada');
    expect(german('loadMore')).toBe(ENGLISH.loadMore);
    expect(translator<WidgetKey>('fr', wordsFor('fr', {}, {}))('reply')).toBe('Reply');
    expect(german.has('badge_staff')).toBe(true);
    expect(german.has('badge_gold')).toBe(false);
  });

  it("keeps the dialogs' words apart from the widget's: a dialog lays the widget's over its own, so a shared key would change its words", () => {
    expect(Object.keys(ENGLISH).filter((key) => key in DIALOG_ENGLISH)).toEqual([]);
  });
});

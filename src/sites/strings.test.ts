import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const patch = (body: object) => parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body });

describe("a site's language and its own words", () => {
  it('sets the default language among those Parley speaks, and clears it with null', async () => {
    expect((await patch({ language: 'pt-BR' })).body.language).toBe('pt-BR');
    const refused = await patch({ language: 'tlh' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect((await patch({ language: null })).body.language).toBeNull();
  });

  it('rewords messages per language, one language at a time, and drops a language given as null', async () => {
    const first = await patch({ strings: { de: { empty: 'Noch keine Kommentare. Schreiben Sie den ersten!' }, fr: { reply: 'Répondre' } } });
    expect(first.status).toBe(200);
    expect(first.body.strings).toEqual({ de: { empty: 'Noch keine Kommentare. Schreiben Sie den ersten!' }, fr: { reply: 'Répondre' } });
    const second = await patch({ strings: { de: { replySubject: '{count, plural, one {Eine neue Antwort auf {page}} other {# neue Antworten auf {page}}}' }, fr: null } });
    expect(second.body.strings).toEqual({ de: { replySubject: '{count, plural, one {Eine neue Antwort auf {page}} other {# neue Antworten auf {page}}}' } });
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.strings).toEqual(second.body.strings);
    expect((await patch({ strings: null })).body.strings).toEqual({});
  });

  it('refuses words with other placeholders than Parley’s, missing plural forms, unknown keys or languages, and keeps what it had', async () => {
    await patch({ strings: { de: { reply: 'Antworten' } } });
    const cases: Array<[object, string, string]> = [
      [{ de: { replyTo: 'Antwort an {nom}' } }, '/strings/de/replyTo', 'uses {nom}'],
      [{ ru: { newComments: '{count, plural, one {# новый} other {# новых}}' } }, '/strings/ru/newComments', 'few'],
      [{ de: { replyTo: 'Antwort an {name' } }, '/strings/de/replyTo', 'ICU MessageFormat'],
      [{ de: { noSuchMessage: 'x' } }, '/strings/de/noSuchMessage', 'not a message'],
      [{ xx: { reply: 'x' } }, '/strings/xx', 'language Parley speaks'],
    ];
    for (const [strings, path, words] of cases) {
      const refused = await patch({ strings });
      expect(refused.status, JSON.stringify(strings)).toBe(400);
      expect(refused.body.errors[0].path).toBe(`body${path}`);
      expect(refused.body.errors[0].message).toContain(words);
    }
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.strings).toEqual({ de: { reply: 'Antworten' } });
  });
});

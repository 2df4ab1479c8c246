import type { IncomingHttpHeaders } from 'node:http';
import { matchLocale, type Locale } from './locales.ts';

/**
 * The language a request asks for: the first tag of its Accept-Language header that Parley speaks,
 * in the header's order (the widget sends the one locale it shows; browsers list theirs by
 * preference, so q-values add nothing here). Null when no tag matches, for the caller's next source
 * (a record's language, the site's) to decide.
 */
export function requestLocale(request: { headers: IncomingHttpHeaders }): Locale | null {
  const header = request.headers['accept-language'];
  if (!header) return null;
  for (const range of header.split(',')) {
    const found = matchLocale(range.split(';')[0]);
    if (found) return found;
  }
  return null;
}

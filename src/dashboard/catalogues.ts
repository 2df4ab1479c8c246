import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileCatalog, readCatalog } from '../i18n/compile.ts';
import type { Catalog } from '../i18n/messages.ts';
import { LOCALES, type Locale } from '../i18n/locales.ts';
import { sourcePath, type Bundle } from '../http/bundle.ts';

/**
 * The dashboard's languages other than English (which its script holds), compiled as its script
 * needs them, each a file of its own so that a browser fetches only the one it speaks. A file in
 * `override` (PARLEY_DASHBOARD_LOCALES) takes the place of Parley's own.
 */
export function readDashboardCatalogues(override: string | null): { files: Map<Locale, Bundle>; boot: Map<Locale, BootWords> } {
  const folders = [override, sourcePath(import.meta.url, 'dashboard/locales')].filter((folder): folder is string => folder !== null);
  const files = new Map<Locale, Bundle>();
  const boot = new Map<Locale, BootWords>();
  let english: Catalog = {};
  for (const locale of LOCALES) {
    const file = folders.map((folder) => join(folder, `${locale}.json`)).find((path) => existsSync(path));
    if (!file) continue;
    const catalog = readCatalog(file);
    if (locale === 'en') english = catalog;
    const word = (key: string) => catalog[key] ?? english[key];
    boot.set(locale, { title: word('page.title'), loading: word('shell.loading'), noscript: word('page.noscript') });
    if (locale === 'en') continue;
    const code = Buffer.from(JSON.stringify(compileCatalog(catalog)));
    const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
    files.set(locale, { code, gzipped: gzipSync(code, { level: 9 }), etag });
  }
  return { files, boot };
}

/** What the page says before its script runs, in the browser's language: plain texts, no placeholders. */
export interface BootWords {
  title: string;
  loading: string;
  noscript: string;
}

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileCatalog, readCatalog } from '../i18n/compile.ts';
import { LOCALES, type Locale } from '../i18n/locales.ts';
import { sourcePath, type Bundle } from '../http/bundle.ts';

/**
 * The dashboard's languages other than English (which its script holds), compiled as its script
 * needs them, each a file of its own so that a browser fetches only the one it speaks. A file in
 * `override` (PARLEY_DASHBOARD_LOCALES) takes the place of Parley's own.
 */
export function readDashboardCatalogues(override: string | null): Map<Locale, Bundle> {
  const folders = [override, sourcePath(import.meta.url, 'dashboard/locales')].filter((folder): folder is string => folder !== null);
  const catalogues = new Map<Locale, Bundle>();
  for (const locale of LOCALES) {
    const file = folders.map((folder) => join(folder, `${locale}.json`)).find((path) => existsSync(path));
    if (locale === 'en' || !file) continue;
    const code = Buffer.from(JSON.stringify(compileCatalog(readCatalog(file))));
    const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
    catalogues.set(locale, { code, gzipped: gzipSync(code, { level: 9 }), etag });
  }
  return catalogues;
}

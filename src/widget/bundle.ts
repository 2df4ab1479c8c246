import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { asBundle, buildBundle, builtOnce, sourcePath, type Bundle } from '../http/bundle.ts';
import { compileCatalog, readCatalog } from '../i18n/compile.ts';
import { LOCALES } from '../i18n/locales.ts';
import { TRANSLATED_LOCALES } from '../i18n/messages.ts';
import { compileElementWords } from './elements/compile.ts';

/** A bundle whose name holds a hash of its content, so it can be cached for good. */
export interface NamedBundle extends Bundle {
  /** The path it is served at, relative to embed.js: `embed/account.<hash>.js`. */
  path: string;
}

/**
 * The locale files: one a locale, its widget's and dialogs' messages compiled together, and one of
 * the words of the bell's panel (`<locale>.bell`), which only a signed-in reader who opens it fetches.
 */
export interface LocaleFiles {
  /** Their folder, relative to embed.js, named by a hash of them all: `embed/locales/<hash>`. */
  path: string;
  byLocale: Map<string, Bundle>;
}

/**
 * Bundles the sign-in and "Your account" dialogs into one ES module, which embed.js imports the
 * first time a reader opens one: most readers never do, and every page view pays for embed.js.
 * The module bundles none of the widget's code: the widget lends it its DOM helpers (see DialogKit).
 */
export async function buildDialogs(): Promise<NamedBundle> {
  const bundle = await buildBundle(sourcePath(import.meta.url, 'widget/client/dialogs.ts'), { format: 'esm', target: ['es2022'] });
  return { ...bundle, path: `embed/account.${createHash('sha256').update(bundle.code).digest('hex').slice(0, 16)}.js` };
}

/**
 * Each locale but English (which embed.js holds) as one JSON file of compiled messages (src/i18n/compile.ts),
 * from the message files there are: a reader's widget fetches its own language's alone. A key a file
 * lacks stays English in the widget. One hash names them all, so embed.js knows the folder alone.
 */
export function buildLocaleFiles(): LocaleFiles {
  const folder = sourcePath(import.meta.url, 'widget/locales');
  const byLocale = new Map<string, Bundle>();
  const hash = createHash('sha256');
  const add = (name: string, catalogs: string[]) => {
    if (catalogs.length === 0) return;
    const code = Buffer.from(JSON.stringify(Object.assign({}, ...catalogs.map((file) => compileCatalog(readCatalog(file))))));
    hash.update(`${name}\n`).update(code);
    byLocale.set(name, asBundle(code));
  };
  for (const locale of TRANSLATED_LOCALES) {
    add(locale, [join(folder, `${locale}.json`), join(folder, 'dialogs', `${locale}.json`)].filter((file) => existsSync(file)));
    add(`${locale}.bell`, [join(folder, 'bell', `${locale}.json`)].filter((file) => existsSync(file)));
  }
  return { path: `embed/locales/${hash.digest('hex').slice(0, 16)}`, byLocale };
}

/**
 * Bundles the widget into one minified script (an IIFE: no globals but the custom element). For
 * browsers of 2022 on: its dialogs need `<dialog>` (Safari 15.4), and their class fields and private
 * methods then need no down-levelled helpers (a tenth of the script). It names the dialogs' module
 * and the locale files' folder by their hashes: a new embed.js never loads an old one, whatever a cache kept.
 */
export async function buildWidget(dialogs?: NamedBundle, locales: LocaleFiles = buildLocaleFiles()): Promise<Bundle> {
  const { path } = dialogs ?? (await buildDialogs());
  return buildBundle(sourcePath(import.meta.url, 'widget/client/main.ts'), {
    target: ['es2022'],
    define: { PARLEY_DIALOGS_PATH: JSON.stringify(path), PARLEY_LOCALES_PATH: JSON.stringify(locales.path) },
  });
}

export const dialogsBundle = builtOnce(buildDialogs);
export const localeFiles = builtOnce(async () => buildLocaleFiles());
export const widgetBundle = builtOnce(async () => buildWidget(await dialogsBundle(), await localeFiles()));

/**
 * A small script of its own for one element (`count` or `recent`, in widget/elements), with the
 * messages it shows in every locale compiled into it (elements/compile.ts): a page that only shows
 * counts fetches neither embed.js nor a locale file.
 */
export async function buildElement(name: 'count' | 'recent', keys: string[]): Promise<Bundle> {
  const folder = sourcePath(import.meta.url, 'widget/locales/elements');
  const words = Object.fromEntries(
    LOCALES.filter((locale) => existsSync(join(folder, `${locale}.json`))).map((locale) => [locale, compileElementWords(readCatalog(join(folder, `${locale}.json`)), keys)]),
  );
  return buildBundle(sourcePath(import.meta.url, `widget/elements/${name}.ts`), { target: ['es2022'], define: { PARLEY_ELEMENT_WORDS: JSON.stringify(words) } });
}

export const countBundle = builtOnce(() => buildElement('count', ['commentCount']));
export const recentBundle = builtOnce(() => buildElement('recent', ['recentComments', 'recentEntry', 'noRecentComments']));

import { createHash } from 'node:crypto';
import { buildBundle, builtOnce, sourcePath, type Bundle } from '../http/bundle.ts';

/** A bundle whose name holds a hash of its content, so it can be cached for good. */
export interface NamedBundle extends Bundle {
  /** The path it is served at, relative to embed.js: `embed/account.<hash>.js`. */
  path: string;
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
 * Bundles the widget into one minified script (an IIFE: no globals but the custom element). For
 * browsers of 2022 on: its dialogs need `<dialog>` (Safari 15.4), and their class fields and private
 * methods then need no down-levelled helpers (a tenth of the script). It names the dialogs' module
 * by its hash: a new embed.js never loads an old module, whatever a cache kept.
 */
export async function buildWidget(dialogs?: NamedBundle): Promise<Bundle> {
  const { path } = dialogs ?? (await buildDialogs());
  return buildBundle(sourcePath(import.meta.url, 'widget/client/main.ts'), { target: ['es2022'], define: { PARLEY_DIALOGS_PATH: JSON.stringify(path) } });
}

export const dialogsBundle = builtOnce(buildDialogs);
export const widgetBundle = builtOnce(async () => buildWidget(await dialogsBundle()));

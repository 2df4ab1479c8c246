import { ParleyComments } from './element.ts';

/** Set when bundled (src/widget/bundle.ts): the dialogs' module and the locale files' folder, relative to embed.js. */
declare const PARLEY_DIALOGS_PATH: string;
declare const PARLEY_LOCALES_PATH: string;

// currentScript is only set while this script first runs, async or not.
const script = document.currentScript as HTMLScriptElement | null;
ParleyComments.apiBase = script?.src ? new URL('.', script.src).href.replace(/\/$/, '') : location.origin;
ParleyComments.dialogsUrl = `${ParleyComments.apiBase}/${PARLEY_DIALOGS_PATH}`;
ParleyComments.localesUrl = `${ParleyComments.apiBase}/${PARLEY_LOCALES_PATH}`;
if (!customElements.get('parley-comments')) customElements.define('parley-comments', ParleyComments);

import { ParleyComments } from './element.ts';

// currentScript is only set while this script first runs, async or not.
const script = document.currentScript as HTMLScriptElement | null;
ParleyComments.apiBase = script?.src ? new URL('.', script.src).href.replace(/\/$/, '') : location.origin;
if (!customElements.get('parley-comments')) customElements.define('parley-comments', ParleyComments);

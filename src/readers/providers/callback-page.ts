import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { sendHtmlPage } from '../../http/html-page.ts';
import { escapeHtml } from '../../formatting/escape.ts';
import type { Voice } from '../../mail/words.ts';

/** What the pop-up tells the page that opened it, and to which origin only. */
export interface OpenerMessage {
  message: { type: 'parley:session'; session: unknown } | { type: 'parley:sign-in-error'; detail: string };
  /** The return_to page's origin: postMessage's targetOrigin, so no other page can read the session. */
  origin: string;
  /**
   * For a session: return_to with the token in its fragment. A provider whose pages send
   * Cross-Origin-Opener-Policy cuts the pop-up off from its opener; the pop-up then opens the page
   * itself, whose widget keeps the token in the site's storage (which the opener's widget hears) and
   * closes the pop-up.
   */
  fallback?: string;
}

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}';

/**
 * The pop-up hands its message to the page that opened it, then closes once signed in (a failure
 * stays open to be read). Without an opener, a session goes to the page itself (`fallback`).
 */
const SCRIPT =
  "(()=>{const{message,origin,fallback}=JSON.parse(document.getElementById('parley-message').textContent);" +
  "if(window.opener){window.opener.postMessage(message,origin);if(message.type==='parley:session')window.close();}" +
  "else if(fallback)location.replace(fallback);})();";

/**
 * The page the callback answers: a title and a message, and, for a pop-up whose opener is known, its
 * message to the opener. Its one script and style are allowed by a nonce of this answer alone.
 */
export function sendCallbackPage(reply: FastifyReply, status: number, voice: Pick<Voice, 'locale' | 'dir'>, title: string, text: string, opener: OpenerMessage | null): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  // JSON in an inert script element: `<` escaped so that no value can end the element.
  const data = opener ? `<script type="application/json" id="parley-message">${JSON.stringify(opener).replace(/</g, '\\u003c')}</script><script nonce="${nonce}">${SCRIPT}</script>` : '';
  const html =
    `<!doctype html><html lang="${voice.locale}" dir="${voice.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">` +
    `<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>${data}</body></html>`;
  const sources = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`;
  return sendHtmlPage(reply.code(status), { sources, framedBy: 'none' }, html);
}

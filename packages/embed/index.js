/** Where each element is defined, on the Parley server. */
const SCRIPTS = { 'parley-comments': '/embed.js', 'parley-count': '/embed/count.js' };

/**
 * Adds the script that defines `element` to the page, once however many components ask (a later
 * one finds the first one's script tag, or the element already defined by a tag of the page's own).
 * Resolves when the element is defined; the elements already in the page are upgraded then.
 *
 * @param {string} server
 * @param {'parley-comments' | 'parley-count'} element
 * @returns {Promise<unknown>}
 */
export function loadParley(server, element) {
  // Server-side rendering: the browser loads it when the component mounts there.
  if (typeof document === 'undefined') return Promise.resolve();
  const src = server.replace(/\/+$/, '') + SCRIPTS[element];
  if (!customElements.get(element) && !document.querySelector(`script[src="${CSS.escape(src)}"]`)) {
    const script = document.createElement('script');
    script.src = src;
    script.async = true;
    document.head.append(script);
  }
  return customElements.whenDefined(element);
}

/**
 * The elements' attributes for the components' props; a prop left undefined leaves its attribute
 * out (the element's default: the page's address as the thread, the page's language).
 *
 * @param {import('./index.d.ts').ParleyCommentsProps} props
 * @returns {Record<string, string>}
 */
export function commentsAttributes({ siteId, threadUrl, theme, lang, sessionToken, ssoToken }) {
  return defined({ 'site-id': siteId, 'thread-url': threadUrl, theme, lang, 'session-token': sessionToken, 'sso-token': ssoToken });
}

/**
 * @param {import('./index.d.ts').ParleyCountProps} props
 * @returns {Record<string, string>}
 */
export function countAttributes({ siteId, threadUrl }) {
  return defined({ 'site-id': siteId, 'thread-url': threadUrl });
}

/** @param {Record<string, string | undefined | null>} attributes */
function defined(attributes) {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined && value !== null && value !== ''));
}

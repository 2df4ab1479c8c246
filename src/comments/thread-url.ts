import { invalid } from '../errors.ts';

export const MAX_THREAD_URL = 2048;

/**
 * The thread key of a page address: absolute http(s) without a user name or password, fragment
 * dropped, scheme and host lower-cased (WHATWG URL parsing does that and percent-encodes the rest),
 * path and query kept.
 */
export function threadKey(raw: string, path = 'body/thread_url'): URL {
  if (raw.length > MAX_THREAD_URL) throw invalid(path, `must be at most ${MAX_THREAD_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(path, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(path, 'must be an absolute http(s) URL');
  // https://evil.example@blog.example/p reads as evil.example to people, while its host is blog.example.
  if (url.username || url.password) throw invalid(path, 'must not carry a user name or password');
  url.hash = '';
  if (url.href.length > MAX_THREAD_URL) throw invalid(path, `must be at most ${MAX_THREAD_URL} characters once normalised`);
  return url;
}

export function assertAllowedHost(url: URL, domains: string[], path = 'body/thread_url'): void {
  // A domain written with a port (localhost:8080) is that host on that port.
  if (domains.length > 0 && !domains.includes(url.hostname) && !domains.includes(url.host)) {
    throw invalid(path, `host ${url.hostname} is not one of the site's domains (${domains.join(', ')})`);
  }
}

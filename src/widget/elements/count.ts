import { localeOf, say, serverOfScript, threadUrlOf } from './words.ts';

/** GET /v1/counts takes this many URLs at once. */
const URLS_PER_REQUEST = 100;
const server = serverOfScript();

/** Elements waiting for their count: those connected (or changed) in this turn of the event loop. */
const waiting = new Set<ParleyCount>();

/**
 * `<parley-count site-id="…" thread-url="…">`: the number of comments the public sees in a thread,
 * as "12 comments" in the page's language. All the count elements of a page are asked for together:
 * those connected in one task wait for a microtask, then one request per site carries them all (one
 * more per 100 threads). Until it answers, and if it fails, the element shows what the page put in it.
 */
class ParleyCount extends HTMLElement {
  static observedAttributes = ['site-id', 'thread-url', 'lang'];

  connectedCallback(): void {
    ask(this);
  }

  attributeChangedCallback(): void {
    if (this.isConnected) ask(this);
  }

  show(count: number): void {
    this.textContent = say(localeOf(this), 'commentCount', count);
    this.dataset.count = String(count);
  }
}

function ask(element: ParleyCount): void {
  if (waiting.size === 0) queueMicrotask(sendAll);
  waiting.add(element);
}

function sendAll(): void {
  const bySite = new Map<string, Map<string, ParleyCount[]>>();
  for (const element of waiting) {
    const siteId = element.getAttribute('site-id');
    if (!siteId) continue;
    let byUrl = bySite.get(siteId);
    if (!byUrl) bySite.set(siteId, (byUrl = new Map()));
    const url = threadUrlOf(element);
    byUrl.set(url, [...(byUrl.get(url) ?? []), element]);
  }
  waiting.clear();
  for (const [siteId, byUrl] of bySite) {
    const urls = [...byUrl.keys()];
    for (let start = 0; start < urls.length; start += URLS_PER_REQUEST) void send(siteId, urls.slice(start, start + URLS_PER_REQUEST), byUrl);
  }
}

async function send(siteId: string, urls: string[], byUrl: Map<string, ParleyCount[]>): Promise<void> {
  const query = new URLSearchParams({ site_id: siteId });
  for (const url of urls) query.append('url', url);
  try {
    const response = await fetch(`${server}/v1/counts?${query}`);
    if (!response.ok) return;
    const { counts } = (await response.json()) as { counts: Record<string, number> };
    for (const url of urls) for (const element of byUrl.get(url)!) element.show(counts[url] ?? 0);
  } catch {
    // Offline or blocked: the page's own text stays.
  }
}

if (!customElements.get('parley-count')) customElements.define('parley-count', ParleyCount);

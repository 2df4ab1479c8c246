import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Writes a Disqus export of `comments` comments over `threads` pages, as Disqus lays it out (threads
 * first, then posts): every other comment a reply to an earlier one of its page, some deleted with
 * replies, some spam, times with and without zones. Deterministic; written in 1 MiB pieces.
 */
export function writeDisqusExport(path: string, comments: number, threads: number): void {
  const fd = openSync(path, 'w');
  let buffer = '';
  const put = (text: string) => {
    buffer += text;
    if (buffer.length > 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  };
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  put('<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n');
  for (let t = 0; t < threads; t++) {
    put(`  <thread dsq:id="t${t}"><id>page-${t}</id><forum>bench</forum><link>https://bench.example.com/posts/${t}</link><title>Post ${t}</title><createdAt>2015-01-01T00:00:00Z</createdAt><isClosed>false</isClosed><isDeleted>false</isDeleted></thread>\n`);
  }
  const start = Date.UTC(2015, 1, 1);
  for (let c = 0; c < comments; c++) {
    const thread = c % threads;
    // An earlier comment of the same page (same remainder), about half the time.
    const earlier = c - threads * (1 + Math.floor(random() * 20));
    const parent = c >= threads && random() < 0.5 && earlier >= 0 ? `<parent dsq:id="p${earlier}"/>` : '';
    const time = new Date(start + c * 60_000).toISOString();
    const when = c % 10 === 0 ? time.slice(0, 19).replace('T', ' ') : time.replace(/\.\d{3}Z$/, '+00:00');
    put(
      `  <post dsq:id="p${c}"><id/><message><![CDATA[<p>Comment ${c} on post ${thread}: a few words &amp; a <a href="https://example.org/${c}">link</a>.</p><p>Second paragraph.</p>]]></message>` +
        `<createdAt>${when}</createdAt><isDeleted>${c % 50 === 7}</isDeleted><isSpam>${c % 97 === 3}</isSpam>` +
        `<author><email>user${c % 5000}@example.com</email><name>User ${c % 5000}</name><isAnonymous>false</isAnonymous><username>user${c % 5000}</username></author>` +
        `<ipAddress>192.0.2.${c % 250}</ipAddress><thread dsq:id="t${thread}"/>${parent}</post>\n`,
    );
  }
  put('</disqus>\n');
  writeSync(fd, buffer);
  closeSync(fd);
}

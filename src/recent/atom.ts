import { escapeHtml } from '../formatting/escape.ts';
import type { Locale } from '../i18n/locales.ts';

/** One entry of a feed: a comment, written for feed readers. */
export interface AtomEntry {
  id: string;
  title: string;
  author: string;
  published: string;
  updated: string;
  link: string;
  html: string;
}

export interface AtomFeed {
  id: string;
  title: string;
  lang: Locale;
  /** The newest entry's `updated`, or when the feed began (the site or thread) while it has none. */
  updated: string;
  self: string;
  /** The page the feed is about (a thread's page); none for a site. */
  alternate: string | null;
  entries: AtomEntry[];
}

/** Text as XML character data or an attribute value: escaped as for HTML, less the characters XML 1.0 does not allow (C0 controls but tab and newlines), which a name may hold. */
export function escapeXml(text: string): string {
  return escapeHtml(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ''));
}

/** A tag URI (RFC 4151) under the Parley server's host, minted on `date` (an ISO time): ids that never change for a site, thread or comment. */
export function tagUri(host: string, date: string, specific: string): string {
  return `tag:${host},${date.slice(0, 10)}:${specific}`;
}

/** The feed as Atom 1.0 (RFC 4287). Each comment's HTML goes in as escaped text (`type="html"`), as sanitised for the widget. */
export function atomXml(feed: AtomFeed): string {
  const entries = feed.entries.map(
    (entry) => `  <entry>
    <id>${escapeXml(entry.id)}</id>
    <title>${escapeXml(entry.title)}</title>
    <author><name>${escapeXml(entry.author)}</name></author>
    <published>${entry.published}</published>
    <updated>${entry.updated}</updated>
    <link rel="alternate" type="text/html" href="${escapeXml(entry.link)}"/>
    <content type="html">${escapeXml(entry.html)}</content>
  </entry>
`,
  );
  const alternate = feed.alternate === null ? '' : `  <link rel="alternate" type="text/html" href="${escapeXml(feed.alternate)}"/>\n`;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${feed.lang}">
  <id>${escapeXml(feed.id)}</id>
  <title>${escapeXml(feed.title)}</title>
  <updated>${feed.updated}</updated>
  <link rel="self" type="application/atom+xml" href="${escapeXml(feed.self)}"/>
${alternate}  <generator>Parley</generator>
${entries.join('')}</feed>
`;
}

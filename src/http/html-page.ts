import type { FastifyReply } from 'fastify';

/** What an HTML page of this server may load (its Content-Security-Policy but frame-ancestors), and who may frame it. */
export interface PagePolicy {
  sources: string;
  /** Nobody, or this server's own pages (the dashboard frames its widget preview). */
  framedBy: 'none' | 'self';
}

/**
 * Sends an HTML page with the headers every page of this server carries: never cached, its
 * Content-Security-Policy, no Referer sent on (a page's URL may hold a session token), and
 * X-Frame-Options saying what frame-ancestors says, for browsers that read only the older header.
 * nosniff is on every answer (app.ts).
 */
export function sendHtmlPage(reply: FastifyReply, policy: PagePolicy, html: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', `${policy.sources}; frame-ancestors '${policy.framedBy}'`)
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', policy.framedBy === 'none' ? 'DENY' : 'SAMEORIGIN')
    .send(html);
}

import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A strong entity tag for a response body, or for content that decides every byte of one. */
export function etagOf(content: Buffer | string): string {
  return `"${digestOf(content)}"`;
}

export function digestOf(content: Buffer | string): string {
  return hash('sha1', content, 'base64url');
}

/** Whether an If-None-Match header names this entity tag (weak or strong; `*` matches anything). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** Answers JSON bytes with their entity tag: 304 and no body when If-None-Match names it. */
export function sendWithEtag(request: FastifyRequest, reply: FastifyReply, response: { body: Buffer; etag: string }) {
  reply.header('etag', response.etag);
  if (matchesEtag(request.headers['if-none-match'], response.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(response.body);
}

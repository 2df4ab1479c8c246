import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from '../errors.ts';

/**
 * JSON bodies: an empty body is "no body" (so `DELETE` with a Content-Type header works), and
 * `__proto__`/`constructor.prototype` keys are refused rather than parsed.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  // The API speaks JSON only: a text/plain body is an unsupported media type, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError('invalid_json', 'The request body is not valid JSON'), undefined);
    }
  });
}

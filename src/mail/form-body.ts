import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../errors.ts';

/** The fields a mail page's form, or a mail client's one-click, posts (RFC 8058: `List-Unsubscribe=One-Click`). */
const FormFields = Type.Object(
  {
    forget: Type.Optional(Type.String({ maxLength: 100, description: '`address` on a link for every mail: delete the address instead' })),
    resume: Type.Optional(Type.String({ maxLength: 100, description: '`mail` on a link for every mail: lift an earlier "stop all mail" instead' })),
    'List-Unsubscribe': Type.Optional(Type.String({ maxLength: 100, description: '`One-Click`, from a mail client (RFC 8058)' })),
  },
  { additionalProperties: true },
);

/** A page's request body with these fields: its own form posts urlencoded, mail clients' one-click often multipart (as RFC 8058 recommends). */
export const formBodyOf = <Fields extends TSchema>(fields: Fields) => ({
  content: {
    'application/x-www-form-urlencoded': { schema: fields },
    'multipart/form-data': { schema: fields },
  },
});

export const FormBody = formBodyOf(FormFields);

/** What the pages answer (the mail pages, and the staff address confirmation's). */
export const HtmlPage = { description: 'A small HTML page', content: { 'text/html': { schema: Type.String() } } };

/** A posted form's text fields; files are not read. A null prototype: a field named `__proto__` is a field. */
type Fields = Record<string, string>;

function fieldsOf(form: { forEach(each: (value: FormDataEntryValue, name: string) => void): void }): Fields {
  const fields: Fields = Object.create(null);
  form.forEach((value, name) => {
    if (typeof value === 'string') fields[name] = value;
  });
  return fields;
}

/**
 * Form bodies for the routes of the plugin that calls this (Fastify scopes parsers to it), within
 * the server's body limit. Multipart is read by the platform's own parser (undici's, behind
 * Response.formData), the one Node's fetch uses: no second multipart parser to keep.
 */
export function registerFormParsers(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, fieldsOf(new URLSearchParams(String(body)))));
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    try {
      const form = await new Response(new Uint8Array(body), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
      return fieldsOf(form);
    } catch {
      throw new AppError('validation_failed', 'The request body is not valid multipart/form-data', [{ path: 'body', message: 'is not valid multipart/form-data' }]);
    }
  });
}

/** A field of a posted form; null for a body of any other kind, or none. */
export function formField(body: unknown, name: string): string | null {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) return null;
  const value = (body as Fields)[name];
  return typeof value === 'string' ? value : null;
}

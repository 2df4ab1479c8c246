import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { invalid } from '../errors.ts';

/**
 * Bodies are validated strictly (a number is not a string); query strings and path parameters are
 * text on the wire, so they get type coercion.
 */
function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: true, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

export function registerValidators(app: FastifyInstance): void {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}

/**
 * The path of the first string (value or key) holding U+0000 in a parsed request part, if any. It
 * runs on every request, so a path is written only for an object to descend into or for the answer.
 */
function nulPath(root: unknown, base: string): string | null {
  if (typeof root === 'string') return root.includes('\u0000') ? base : null;
  const pending: Array<[unknown, string]> = [[root, base]];
  // Iterative: a body may nest as deep as its 64 KiB allow.
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      if (key.includes('\u0000')) return path;
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === 'string') {
        if (child.includes('\u0000')) return `${path}/${key}`;
      } else if (child !== null && typeof child === 'object') {
        pending.push([child, `${path}/${key}`]);
      }
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000 (the query fails), and no Parley field has a use for it, so it
 * is refused in every part of every request before validation, on both databases alike.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const path =
      nulPath(request.params, 'params') ?? nulPath(request.query, 'querystring') ?? nulPath(request.body, 'body');
    if (path !== null) throw invalid(path, 'must not contain the NUL character');
  });
}

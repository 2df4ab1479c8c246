import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema),
  );
}

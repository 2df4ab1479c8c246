import { readFileSync } from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { Plugin } from 'esbuild';

/** A message file: key → ICU MessageFormat text. */
export type Catalog = Record<string, string>;

/**
 * A message as browsers get it: plain text when it has no placeholder, else the ICU syntax tree, so
 * that pages format messages without shipping the ICU parser (runtime.ts).
 */
export type CompiledMessage = string | MessageFormatElement[];
export type CompiledCatalog = Record<string, CompiledMessage>;

/** Tags are not markup in Parley's messages: `<` is text. */
export const PARSE_OPTIONS = { ignoreTag: true, requiresOtherClause: true } as const;

export function compileMessage(text: string): CompiledMessage {
  const elements = parse(text, PARSE_OPTIONS);
  // A lone literal is sent as text, unless it holds a brace that runtime.ts would take for syntax.
  if (elements.length === 0) return '';
  if (elements.length === 1 && elements[0].type === TYPE.literal && !elements[0].value.includes('{')) return elements[0].value;
  return elements;
}

export function compileCatalog(catalog: Catalog): CompiledCatalog {
  return Object.fromEntries(Object.entries(catalog).map(([key, text]) => [key, compileMessage(text)]));
}

export function readCatalog(file: string): Catalog {
  return JSON.parse(readFileSync(file, 'utf8')) as Catalog;
}

/**
 * Browser bundles import message files (`…/locales/…/<lang>.json`) compiled, and format them with
 * intl-messageformat without its parser (a quarter of its size).
 */
export const messagesPlugin: Plugin = {
  name: 'parley-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]locales[\\/](?:.*[\\/])?[^\\/]+\.json$/ }, (args) => ({
      contents: JSON.stringify(compileCatalog(readCatalog(args.path))),
      loader: 'json',
    }));
  },
};

/** esbuild `alias` that leaves the ICU parser out of browser bundles. */
export const WITHOUT_PARSER = { '@formatjs/icu-messageformat-parser': '@formatjs/icu-messageformat-parser/no-parser.js' };

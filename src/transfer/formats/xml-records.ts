import { SaxesParser } from 'saxes';
import { ImportFileError, MAX_FIELD } from '../source.ts';
import { textOf } from '../input.ts';

/**
 * An element of interest, flattened: `fields` maps a child's path below it (local names joined by
 * "/", attributes as "path@name") to its text. `outer` is what the enclosing record had gathered
 * when this one began (a WordPress comment's post).
 */
export interface XmlRecord {
  name: string;
  fields: Map<string, string>;
  outer: Map<string, string> | null;
  line: number;
}

/** The local part of a qualified name: `dsq:id` → `id`. */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** Deeper nesting than any comment export has: refused, so a hostile file cannot make each tag cost its depth. */
export const MAX_DEPTH = 100;
/** A record keeps its children's texts to this many levels below it: the readers read at most two. */
const FIELD_LEVELS = 3;

/** An open element: its path below the record it is in ('' for the record itself; null: kept nowhere). */
interface OpenElement {
  field: string | null;
  levels: number;
}

/**
 * Streams a file's records: the elements whose path from the root (local names) `isRecord` picks,
 * each yielded when it closes. Memory holds one record per level, never the document. Each tag and
 * text costs the same whatever its depth: an element's path below its record is built once, from its
 * parent's, when it opens.
 *
 * No DTD is read: a document type declaration is refused, so there is no external entity to fetch
 * (XXE) and no declared entity to expand ("billion laughs"); only XML's five predefined entities
 * and character references are decoded. saxes holds a text, tag or declaration whole until it
 * ends, so one that runs past MAX_FIELD characters stops the file, as does nesting past MAX_DEPTH.
 * Errors name the line.
 */
export async function* xmlRecords(path: string, isRecord: (stack: string[]) => boolean): AsyncGenerator<XmlRecord> {
  const parser = new SaxesParser({ position: true });
  const fail = (message: string): never => {
    throw new ImportFileError(`line ${parser.line}: ${message}`);
  };
  const names: string[] = [];
  const elements: OpenElement[] = [];
  const open: { record: XmlRecord; depth: number }[] = [];
  const ready: XmlRecord[] = [];
  // Where the last token ended: what saxes holds unfinished is everything after it.
  let tokenEnd = 0;
  const text = (value: string) => {
    tokenEnd = parser.position;
    const field = elements.at(-1)?.field;
    if (!field) return;
    const fields = open.at(-1)!.record.fields;
    const joined = (fields.get(field) ?? '') + value;
    if (joined.length > MAX_FIELD) fail(`<${names.at(-1)}> holds more than ${MAX_FIELD} characters`);
    fields.set(field, joined);
  };
  parser.on('doctype', () => fail('document type declarations (DTDs) are not accepted'));
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('opentag', (tag) => {
    tokenEnd = parser.position;
    if (names.length === MAX_DEPTH) fail(`elements nested more than ${MAX_DEPTH} deep`);
    const name = localName(tag.name);
    names.push(name);
    const parent = elements.at(-1);
    let element: OpenElement;
    if (isRecord(names)) {
      open.push({ record: { name, fields: new Map(), outer: open.at(-1)?.record.fields ?? null, line: parser.line }, depth: names.length });
      element = { field: '', levels: 0 };
    } else if (parent && parent.field !== null && parent.levels < FIELD_LEVELS) {
      element = { field: parent.field === '' ? name : `${parent.field}/${name}`, levels: parent.levels + 1 };
    } else element = { field: null, levels: 0 };
    elements.push(element);
    if (element.field === null) return;
    const fields = open.at(-1)!.record.fields;
    for (const [attribute, value] of Object.entries(tag.attributes)) fields.set(`${element.field}@${attribute}`, value);
  });
  parser.on('closetag', () => {
    tokenEnd = parser.position;
    const current = open.at(-1);
    if (current && current.depth === names.length) ready.push(open.pop()!.record);
    names.pop();
    elements.pop();
  });
  for (const event of ['comment', 'processinginstruction', 'xmldecl'] as const) parser.on(event, () => (tokenEnd = parser.position));
  try {
    for await (const chunk of textOf(path)) {
      parser.write(chunk);
      if (parser.position - tokenEnd > MAX_FIELD) fail(`a text, tag or declaration of more than ${MAX_FIELD} characters`);
      yield* ready.splice(0);
    }
    parser.close();
    yield* ready.splice(0);
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    // saxes's own messages start with "line:column: ".
    throw new ImportFileError(`line ${parser.line}: ${(error as Error).message.replace(/^\d+:\d+: /, '')}`);
  }
}

export const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true' || value?.trim() === '1';

import { ImportFileError, MAX_FIELD } from '../source.ts';
import { localName, XmlReader } from '../xml-reader.ts';
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

/**
 * Streams a file's records: the elements whose path from the root (local names) `isRecord` picks,
 * each yielded when it closes. Memory holds one record per level, never the document.
 */
export async function* xmlRecords(path: string, isRecord: (stack: string[]) => boolean): AsyncGenerator<XmlRecord> {
  const stack: string[] = [];
  const open: { record: XmlRecord; depth: number }[] = [];
  const ready: XmlRecord[] = [];
  const reader: XmlReader = new XmlReader({
    open(name, attributes) {
      stack.push(localName(name));
      if (isRecord(stack)) {
        open.push({ record: { name: localName(name), fields: new Map(), outer: open.at(-1)?.record.fields ?? null, line: reader.line }, depth: stack.length });
      }
      const current = open.at(-1);
      if (!current) return;
      const relative = stack.slice(current.depth).join('/');
      for (const [attribute, value] of attributes) current.record.fields.set(`${relative}@${attribute}`, value);
    },
    text(text) {
      const current = open.at(-1);
      if (!current) return;
      const relative = stack.slice(current.depth).join('/');
      if (relative === '') return;
      const fields = current.record.fields;
      const joined = (fields.get(relative) ?? '') + text;
      if (joined.length > MAX_FIELD) reader.fail(`<${stack.at(-1)}> holds more than ${MAX_FIELD} characters`);
      fields.set(relative, joined);
    },
    close() {
      const current = open.at(-1);
      if (current && current.depth === stack.length) ready.push(open.pop()!.record);
      stack.pop();
    },
  });
  try {
    for await (const chunk of textOf(path)) {
      reader.write(chunk);
      yield* ready.splice(0);
    }
    reader.end();
    yield* ready.splice(0);
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`line ${reader.line}: ${(error as Error).message}`);
  }
}

export const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true' || value?.trim() === '1';

import { ImportFileError, MAX_FIELD } from './source.ts';

export interface XmlHandler {
  open(name: string, attributes: Map<string, string>): void;
  text(text: string): void;
  close(name: string): void;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The local part of a qualified name: `dsq:id` → `id`. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * A streaming XML tokenizer for the export files Parley reads: elements, attributes, text, CDATA,
 * comments and processing instructions, fed in chunks, never holding more than one token. It reads
 * no DTD: a `<!DOCTYPE` is refused, so there is no external entity to fetch (XXE) and no declared
 * entity to expand ("billion laughs"); only XML's five predefined entities and character references
 * are decoded. Errors name the line.
 */
export class XmlReader {
  #buffer = '';
  #line = 1;
  #stack: string[] = [];
  #seenRoot = false;

  constructor(readonly handler: XmlHandler) {}

  get line(): number {
    return this.#line;
  }

  fail(message: string): never {
    throw new ImportFileError(`line ${this.#line}: ${message}`);
  }

  write(chunk: string): void {
    this.#buffer += chunk;
    this.#drain(false);
  }

  end(): void {
    this.#drain(true);
    if (this.#buffer.trim() !== '') this.fail('the file ends inside a tag');
    if (this.#stack.length > 0) this.fail(`the file ends before </${this.#stack.at(-1)}>`);
    if (!this.#seenRoot) this.fail('no XML element found');
  }

  #advance(upTo: number): string {
    const taken = this.#buffer.slice(0, upTo);
    for (let i = taken.indexOf('\n'); i !== -1; i = taken.indexOf('\n', i + 1)) this.#line++;
    this.#buffer = this.#buffer.slice(upTo);
    return taken;
  }

  #drain(final: boolean): void {
    for (;;) {
      const buffer = this.#buffer;
      if (buffer.length === 0) return;
      const lt = buffer.indexOf('<');
      if (lt !== 0) {
        // Text up to the next tag (or all of it at the end of the file).
        if (lt === -1 && !final) {
          if (buffer.length > MAX_FIELD) this.fail(`a text longer than ${MAX_FIELD} characters`);
          return;
        }
        const raw = this.#advance(lt === -1 ? buffer.length : lt);
        if (this.#stack.length === 0) {
          if (raw.trim() !== '') this.fail('text outside the root element');
        } else {
          this.handler.text(this.#decode(raw));
        }
        continue;
      }
      const end = this.#tokenEnd(buffer);
      if (end === -1) {
        if (buffer.length > MAX_FIELD) this.fail(`a tag or section longer than ${MAX_FIELD} characters`);
        if (final) this.fail('the file ends inside a tag');
        return;
      }
      this.#token(this.#advance(end));
    }
  }

  /** Where the markup token at the start of the buffer ends (exclusive), or -1 if it is not all there. */
  #tokenEnd(buffer: string): number {
    if (buffer.startsWith('<!--')) {
      const close = buffer.indexOf('-->', 4);
      return close === -1 ? -1 : close + 3;
    }
    if (buffer.startsWith('<![CDATA[')) {
      const close = buffer.indexOf(']]>', 9);
      return close === -1 ? -1 : close + 3;
    }
    if (buffer.startsWith('<?')) {
      const close = buffer.indexOf('?>', 2);
      return close === -1 ? -1 : close + 2;
    }
    if (buffer.length < 9 && '<!DOCTYPE'.startsWith(buffer.slice(0, 9))) return -1;
    // A tag ends at the first '>' outside a quoted attribute value.
    let quote = '';
    for (let i = 1; i < buffer.length; i++) {
      const c = buffer[i];
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') return i + 1;
    }
    return -1;
  }

  #token(token: string): void {
    if (token.startsWith('<!--') || token.startsWith('<?')) return;
    if (token.startsWith('<![CDATA[')) {
      if (this.#stack.length === 0) this.fail('CDATA outside the root element');
      this.handler.text(token.slice(9, -3));
      return;
    }
    if (token.startsWith('<!')) this.fail('document type declarations (DTDs) are not accepted');
    if (token.startsWith('</')) {
      const name = token.slice(2, -1).trim();
      const open = this.#stack.pop();
      if (open !== name) this.fail(open === undefined ? `</${name}> closes nothing` : `</${name}> where </${open}> was expected`);
      this.handler.close(name);
      return;
    }
    const selfClosing = token.endsWith('/>');
    const body = token.slice(1, selfClosing ? -2 : -1);
    const nameMatch = /^[^\s/>]+/.exec(body);
    if (!nameMatch) this.fail('a tag without a name');
    const name = nameMatch[0];
    if (this.#stack.length === 0 && this.#seenRoot) this.fail('a second root element');
    this.#seenRoot = true;
    const attributes = new Map<string, string>();
    const pattern = /\s*([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
    let at = name.length;
    while (at < body.length) {
      if (body.slice(at).trim() === '') break;
      pattern.lastIndex = at;
      const match = pattern.exec(body);
      if (!match) this.fail(`a malformed attribute in <${name}>`);
      attributes.set(match[1], this.#decode(match[2] ?? match[3]));
      at = pattern.lastIndex;
    }
    this.#stack.push(name);
    this.handler.open(name, attributes);
    if (selfClosing) {
      this.#stack.pop();
      this.handler.close(name);
    }
  }

  #decode(raw: string): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;&\s]*);?/g, (whole, entity: string) => {
      if (!whole.endsWith(';')) this.fail(`a bare "&" (write &amp;)`);
      if (entity.startsWith('#')) {
        const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
        if (!Number.isInteger(code) || code < 1 || code > 0x10ffff) this.fail(`an invalid character reference &${entity};`);
        return String.fromCodePoint(code);
      }
      const decoded = PREDEFINED[entity];
      if (decoded === undefined) this.fail(`an undeclared entity &${entity};`);
      return decoded;
    });
  }
}

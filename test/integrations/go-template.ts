/**
 * Hugo's Go templates cannot run in Node. This stand-in renders the constructs the Hugo guide uses,
 * and fails on any other: comments, `$x := path`, a field path (`.Permalink`, `$parley.server`)
 * optionally piped to `urlquery`, `partial "name" .`, and `range path` / `define "name"` up to
 * their `end`. Output is HTML-escaped, as html/template escapes text in attribute values.
 */
type Value = unknown;
type Vars = Record<string, Value>;

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&#34;');
/** Go's url.QueryEscape: like encodeURIComponent, with a space as `+` and !'()* escaped. */
const queryEscape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replaceAll('%20', '+');

function lookup(path: string, dot: Value, vars: Vars): Value {
  const [head, ...fields] = path.startsWith('$') ? path.split('.') : ['.', ...path.split('.').filter(Boolean)];
  let value = head === '.' ? dot : vars[head];
  if (value === undefined) throw new Error(`unknown variable ${head}`);
  for (const field of fields) {
    value = (value as Record<string, Value>)[field];
    if (value === undefined) throw new Error(`${path}: no field ${field}`);
  }
  return value;
}

export function renderGoTemplate(source: string, dot: Value, partials: Record<string, string>): string {
  const tokens = source.split(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/);
  let position = 0;
  const vars: Vars = {};
  /** Renders tokens until the `end` of the current block (or the end of the source). */
  const block = (dot: Value): string => {
    let out = '';
    while (position < tokens.length) {
      const token = tokens[position++];
      if (position % 2 === 1) {
        out += token;
        continue;
      }
      let match: RegExpExecArray | null;
      if (token === 'end') return out;
      if (token.startsWith('/*')) continue;
      if ((match = /^(\$\w+) := ([\w.$]+)$/.exec(token))) vars[match[1]] = lookup(match[2], dot, vars);
      else if ((match = /^partial "([^"]+)" \.$/.exec(token))) {
        if (!(match[1] in partials)) throw new Error(`no partial ${match[1]}`);
        out += renderGoTemplate(partials[match[1]], dot, partials);
      } else if ((match = /^define "\w+"$/.exec(token))) out += block(dot);
      else if ((match = /^range ([\w.$]+)$/.exec(token))) {
        const start = position;
        const items = lookup(match[1], dot, vars) as Value[];
        if (items.length === 0) throw new Error(`range ${match[1]}: the stand-in needs something to range over`);
        for (const item of items) {
          position = start;
          out += block(item);
        }
      } else if ((match = /^([\w.$]+)( \| urlquery)?$/.exec(token))) {
        const value = String(lookup(match[1], dot, vars));
        out += escape(match[2] ? queryEscape(value) : value);
      } else throw new Error(`the Go template stand-in does not know {{ ${token} }}`);
    }
    return out;
  };
  return block(dot);
}

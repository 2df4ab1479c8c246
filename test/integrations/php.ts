/**
 * PHP cannot run here. This stand-in evaluates the PHP the WordPress guide writes, and fails on
 * anything else: string literals, the file's `const` values, `.` concatenation, and the WordPress
 * functions `esc_attr`, `esc_url` (escaping `&` as `&#038;`, as WordPress does), `rawurlencode` and
 * `get_permalink`, which gives the permalink of the post being rendered.
 */
type Functions = Record<string, (...args: string[]) => string>;

const rawurlencode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const escAttr = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#039;');
const escUrl = (text: string) => text.replaceAll('&', '&#038;').replaceAll("'", '&#039;').replaceAll('"', '&quot;');

function wordpress(permalink: string): Functions {
  return { esc_attr: escAttr, esc_url: escUrl, rawurlencode, get_permalink: () => permalink };
}

const constants = (file: string) => Object.fromEntries([...file.matchAll(/^const (\w+)\s*=\s*'([^']*)';/gm)].map((m) => [m[1], m[2]]));

/** Evaluates a PHP expression of the supported kind. */
function evaluate(source: string, consts: Record<string, string>, functions: Functions): string {
  const tokens = source.match(/'(?:[^'\\]|\\.)*'|\$\w+|\w+|[.,()]/g) ?? [];
  let i = 0;
  const term = (): string => {
    const token = tokens[i++];
    if (token.startsWith("'")) return token.slice(1, -1).replace(/\\(.)/g, '$1');
    if (token.startsWith('$')) return token; // an argument such as $post: get_permalink knows its post
    if (tokens[i] === '(') {
      i++;
      const args: string[] = [];
      while (tokens[i] !== ')') {
        args.push(expression());
        if (tokens[i] === ',') i++;
      }
      i++;
      if (!functions[token]) throw new Error(`the PHP stand-in does not know ${token}()`);
      return functions[token](...args);
    }
    if (token in consts) return consts[token];
    throw new Error(`the PHP stand-in does not know ${token}`);
  };
  const expression = (): string => {
    let value = term();
    while (tokens[i] === '.') {
      i++;
      value += term();
    }
    return value;
  };
  const value = expression();
  if (i !== tokens.length) throw new Error(`the PHP stand-in could not read ${source}`);
  return value;
}

/** Splits a call's arguments at the commas outside parentheses. */
function argumentsOf(list: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (const token of list.match(/'(?:[^'\\]|\\.)*'|[(),]|[^'(),]+/g) ?? []) {
    if (token === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
      continue;
    }
    if (token === '(') depth++;
    if (token === ')') depth--;
    current += token;
  }
  return [...args, current.trim()];
}

/** The code of a hook's callback (`add_action( 'wp_head', …`) or of a named function. */
function regionOf(file: string, name: string): string {
  const start = [`add_filter( '${name}'`, `add_action( '${name}'`, `function ${name}(`].map((opening) => file.indexOf(opening)).find((index) => index >= 0);
  if (start === undefined) throw new Error(`functions.php has no ${name}`);
  return file.slice(start, file.indexOf('\n}', start));
}

/** What the printf and sprintf calls of these hooks and functions write, for the post at `permalink`. */
export function renderPhpPrintfs(file: string, names: string[], permalink: string): string {
  const consts = constants(file);
  return names
    .map((name) =>
      [...regionOf(file, name).matchAll(/s?printf\(\s*([\s\S]*?)\s*\);/g)]
        .map(([, list]) => {
          const [format, ...args] = argumentsOf(list).map((arg) => evaluate(arg, consts, wordpress(permalink)));
          return format.replace(/%s/g, () => args.shift() ?? '');
        })
        .join(''),
    )
    .join('');
}

/** The script tags WordPress prints for the wp_enqueue_script calls of `code`, with the file's loading strategy. */
export function enqueuedScripts(file: string, code: string, permalink: string): string {
  const consts = constants(file);
  const loading = /\$loading = array\( 'strategy' => '(\w+)', 'in_footer' => true \);/.exec(file);
  if (!loading) throw new Error('functions.php loads its scripts without a strategy');
  return [...code.matchAll(/wp_enqueue_script\( '[\w-]+', (.+?), array\(\), null, \$loading \);/g)]
    .map(([, src]) => `<script src="${escUrl(evaluate(src, consts, wordpress(permalink)))}" id="parley" ${loading[1]}></script>`)
    .join('');
}

/** A template file: its `<?php … ?>` tags replaced by what they print. */
export function renderPhpTemplate(template: string, permalink: string, functions: Functions): string {
  const prints: Record<string, () => string> = {
    'the_permalink();': () => escUrl(permalink),
    'the_title();': () => 'A post',
    ...Object.fromEntries(Object.entries(functions).map(([name, fn]) => [`echo ${name}();`, fn])),
  };
  return template.replace(/<\?php\s+([\s\S]*?)\s*\?>/g, (_, code: string) => {
    if (code.startsWith('//')) return '';
    if (!prints[code]) throw new Error(`the PHP stand-in does not know <?php ${code} ?>`);
    return prints[code]();
  });
}

import { posix } from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * A JSX runtime for the guides' components, small enough to read: `jsx()` makes a node, and
 * `renderJsx()` renders it to HTML as React's and Astro's server renderers do for the elements,
 * attributes and function components the guides use (async components too, as in Next.js pages).
 */
const jsxRuntime = `
  export const Fragment = Symbol.for('guide.fragment');
  export function jsx(type, props) { return { type, props }; }
  export const jsxs = jsx;`;

const FRAGMENT = Symbol.for('guide.fragment');

interface Node {
  type: string | symbol | ((props: Record<string, unknown>) => unknown);
  props: Record<string, unknown> & { children?: unknown; dangerouslySetInnerHTML?: { __html: string } };
}

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

export async function renderJsx(node: unknown): Promise<string> {
  node = await node;
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return escape(String(node));
  if (Array.isArray(node)) return (await Promise.all(node.map(renderJsx))).join('');
  const { type, props } = node as Node;
  if (type === FRAGMENT) return renderJsx(props.children);
  if (typeof type === 'function') return renderJsx(type(props));
  if (typeof type !== 'string') throw new Error(`cannot render ${String(type)}`);
  const attributes = Object.entries(props)
    // Astro's directives (`is:inline`) steer its compiler and are not written out.
    .filter(([name, value]) => name !== 'children' && name !== 'dangerouslySetInnerHTML' && !name.includes(':') && value !== undefined && value !== null && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name === 'className' ? 'class' : name}="${escape(String(value))}"`))
    .join('');
  const inner = props.dangerouslySetInnerHTML ? props.dangerouslySetInnerHTML.__html : await renderJsx(props.children);
  return `<${type}${attributes}>${inner}</${type}>`;
}

/**
 * `@parley/react` as agreed between its package and these guides: `server` and `siteId` required
 * (and `threadUrl` for a count), no other props than the agreed ones, drawing the elements. The
 * package's own tests check that it loads the scripts.
 */
export const PARLEY_REACT_CONTRACT = `
  import { jsx } from 'stub/jsx-runtime';
  function checked(name, props, allowed, required) {
    for (const key of Object.keys(props)) if (!allowed.includes(key)) throw new Error(name + ' has no prop ' + key);
    for (const key of required) if (typeof props[key] !== 'string' || !props[key]) throw new Error(name + ' needs ' + key);
  }
  export function ParleyComments(props) {
    checked('ParleyComments', props, ['server', 'siteId', 'threadUrl', 'theme', 'lang', 'sessionToken'], ['server', 'siteId']);
    return jsx('parley-comments', { 'site-id': props.siteId, 'thread-url': props.threadUrl, theme: props.theme, lang: props.lang, 'session-token': props.sessionToken });
  }
  export function ParleyCount(props) {
    checked('ParleyCount', props, ['server', 'siteId', 'threadUrl'], ['server', 'siteId', 'threadUrl']);
    return jsx('parley-count', { 'site-id': props.siteId, 'thread-url': props.threadUrl });
  }`;

/**
 * An Astro component as a module: its front matter's imports at the top, the rest of the front
 * matter and the template (JSX, in everything the guides use) in a function of `Astro`.
 */
export function astroToTsx(source: string): string {
  const [, script, template] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source)!;
  const lines = script.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const body = lines.filter((line) => !line.startsWith('import '));
  return `${imports.join('\n')}\nexport default async function (Astro) {\n${body.join('\n')}\nreturn <>${template}</>;\n}`;
}

/** Bundles the modules (by the names they are imported by) with the JSX stand-in, and runs the entry. */
export async function bundleModules(
  entry: string,
  modules: Record<string, { code: string; loader: 'ts' | 'tsx' }>,
  define: Record<string, string>,
): Promise<any> {
  const virtual: Plugin = {
    name: 'guide-snippets',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, ({ path, importer }) => {
        // A relative import names a module beside its importer, with or without its extension.
        const base = path.startsWith('.') ? posix.join(posix.dirname(importer), path) : path;
        const name = [base, `${base}.ts`, `${base}.tsx`].find((candidate) => candidate === 'stub/jsx-runtime' || modules[candidate]);
        if (!name) throw new Error(`the guide imports ${path}, which the test does not provide`);
        return { path: name, namespace: 'guide' };
      });
      builder.onLoad({ filter: /.*/, namespace: 'guide' }, ({ path }) => (path === 'stub/jsx-runtime' ? { contents: jsxRuntime, loader: 'js' } : { contents: modules[path].code, loader: modules[path].loader }));
    },
  };
  const result = await build({
    stdin: { contents: entry, loader: 'ts', resolveDir: '/' },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'entry',
    jsx: 'automatic',
    jsxImportSource: 'stub',
    define,
    plugins: [virtual],
    logLevel: 'silent',
  });
  return new Function(`${result.outputFiles[0].text}; return entry;`)();
}

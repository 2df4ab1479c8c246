/**
 * Sources a hostile reader could post, each rendered by both formattings in xss.test.ts (parsed as
 * a browser would) and xss.browser.test.ts (drawn in Chromium): none may yield an element,
 * attribute or link scheme outside ALLOWED_ELEMENTS and the link rules, nor run anything.
 */
export interface XssVector {
  name: string;
  source: string;
  /** Text that must appear as text in the output of both formattings (nothing dropped, nothing drawn). */
  shows?: string[];
}

/** The ids the tests know, and the names they answer for them: a name is as hostile as a source. */
export const HOSTILE_NAMES: ReadonlyMap<string, string> = new Map([
  ['usr_x', '"><img src=x onerror=alert(1)>'],
  ['usr_q', `O'Brien "Bob" <script>alert(1)</script> &amp; &lt;b&gt; javascript:alert(1)`],
]);

/** Link targets no comment may carry, in the spellings browsers and parsers have been fooled by. */
const HOSTILE_URLS: Array<[string, string]> = [
  ['javascript:', 'javascript:alert(1)'],
  ['javascript: mixed case', 'JaVaScRiPt:alert(1)'],
  ['javascript: upper case', 'JAVASCRIPT:alert(1)'],
  ['javascript: leading space', ' javascript:alert(1)'],
  ['javascript: leading tab', '\tjavascript:alert(1)'],
  ['javascript: leading newline', '\njavascript:alert(1)'],
  ['javascript: leading control character', '\x01javascript:alert(1)'],
  ['javascript: leading NUL', '\x00javascript:alert(1)'],
  ['javascript: leading DEL', '\x7fjavascript:alert(1)'],
  ['javascript: leading zero-width space', '\u200bjavascript:alert(1)'],
  ['javascript: leading form feed', '\x0cjavascript:alert(1)'],
  ['javascript: tab inside', 'java\tscript:alert(1)'],
  ['javascript: newline inside', 'java\nscript:alert(1)'],
  ['javascript: carriage return inside', 'java\rscript:alert(1)'],
  ['javascript: decimal entity', '&#106;avascript:alert(1)'],
  ['javascript: zero-padded entity', '&#0000106;avascript:alert(1)'],
  ['javascript: hex entity', '&#x6A;avascript:alert(1)'],
  ['javascript: hex entity, upper X', '&#X6a;avascript:alert(1)'],
  ['javascript: entity without semicolon', '&#106avascript:alert(1)'],
  ['javascript: every letter an entity', '&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)'],
  ['javascript: tab entity inside', 'java&#x09;script:alert(1)'],
  ['javascript: decimal tab entity inside', 'java&#9;script:alert(1)'],
  ['javascript: named tab entity inside', 'java&Tab;script:alert(1)'],
  ['javascript: newline entity inside', 'java&NewLine;script:alert(1)'],
  ['javascript: &colon;', 'javascript&colon;alert(1)'],
  ['javascript: &#58;', 'javascript&#58;alert(1)'],
  ['javascript: &#x3a; without semicolon', 'javascript&#x3aalert(1)'],
  ['javascript: double-encoded entity', '&amp;#106;avascript:alert(1)'],
  ['javascript: percent-encoded letter', '%6Aavascript:alert(1)'],
  ['javascript: percent-encoded colon', 'javascript%3Aalert(1)'],
  ['javascript: backslash-escaped colon', 'javascript\\:alert(1)'],
  ['javascript: leading backslash', '\\javascript:alert(1)'],
  ['javascript: escaped code', 'javascript:\\u0061lert(1)'],
  ['javascript: comment and newline', 'javascript://%0aalert(1)'],
  ['javascript: looking like https', 'javascript://https://example.com/%0aalert(1)'],
  ['javascript: entity parens', 'jAvAsCrIpT&colon;alert&lpar;1&rpar;'],
  ['vbscript:', 'vbscript:msgbox(1)'],
  ['vbscript: mixed case', 'VbScRiPt:msgbox(1)'],
  ['data:text/html', 'data:text/html,<script>alert(1)</script>'],
  ['data:text/html;base64', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
  ['data: upper case', 'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
  ['data: image/svg+xml', 'data:image/svg+xml,<svg onload=alert(1)>'],
  ['data: entity-encoded', '&#100;ata:text/html,<script>alert(1)</script>'],
  ['file:', 'file:///etc/passwd'],
  ['file: upper case', 'FILE://C:/Windows/win.ini'],
  ['protocol-relative', '//evil.example/x'],
  ['protocol-relative with backslashes', '\\\\evil.example\\x'],
  ['slash and backslash', '/\\evil.example/x'],
  ['https with backslashes', 'https:\\\\evil.example'],
  ['relative path', '/path/to/nowhere'],
  ['blob:', 'blob:https://evil.example/uuid'],
  ['about:', 'about:blank'],
  ['intent:', 'intent://evil#Intent;scheme=javascript;end'],
  ['https breaking out with a quote', 'https://a.example/"onmouseover="alert(1)'],
  ['https breaking out with a single quote', "https://a.example/'onmouseover='alert(1)"],
  ['https with a tag', 'https://a.example/"><script>alert(1)</script>'],
  ['https with an image in its fragment', 'http://a.example/#"><img src=x onerror=alert(1)>'],
  ['mailto with headers', 'mailto:a@example.com?subject=hi&body=<script>alert(1)</script>&bcc=b@example.com'],
  ['mailto with a quote', 'mailto:a@example.com"onmouseover="alert(1)'],
];

/** Every hostile target as each kind of link Markdown has, and as text a linkifier might link. */
const LINK_SHAPES: Array<[string, (url: string) => string]> = [
  ['inline link', (url) => `[click](${url})`],
  ['inline link in brackets', (url) => `[click](<${url}>)`],
  ['inline link with a title', (url) => `[click](${url} "title")`],
  ['reference link', (url) => `[click][ref]\n\n[ref]: ${url}`],
  ['autolink', (url) => `<${url}>`],
  ['bare text', (url) => `see ${url} here`],
];

const LINK_VECTORS: XssVector[] = LINK_SHAPES.flatMap(([shape, write]) => HOSTILE_URLS.map(([name, url]) => ({ name: `${shape}: ${name}`, source: write(url) })));

const ENTITY_VECTORS: XssVector[] = [
  { name: 'escaped script tag', source: '&lt;script&gt;alert(1)&lt;/script&gt;' },
  { name: 'double-escaped script tag', source: '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;' },
  { name: 'numeric script tag', source: '&#60;script&#62;alert(1)&#60;/script&#62;' },
  { name: 'hex image tag', source: '&#x3C;img src=x onerror=alert(1)&#x3E;' },
  { name: 'entities without semicolons', source: '&lt&#60img src=x onerror=alert(1)&gt' },
  { name: 'escaped tag in code', source: '`&lt;script&gt;` and `<script>alert(1)</script>`', shows: ['<script>alert(1)</script>'] },
  { name: 'escaped tag in a link text', source: '[&lt;img src=x onerror=alert(1)&gt;](https://a.example)' },
  { name: 'backslash-escaped tag', source: '\\<script>alert(1)\\</script>', shows: ['script>alert(1)'] },
  { name: 'invalid code points', source: '&#0;&#xD800;&#x110000;<b>&#65533;' },
];

const EMPHASIS_VECTORS: XssVector[] = [
  { name: 'emphasis around a script tag', source: '*<script>alert(1)</script>*', shows: ['<script>alert(1)</script>'] },
  { name: 'strong around an image', source: '**<img src=x onerror=alert(1)>**', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'unbalanced emphasis around a tag', source: '***<b onclick="alert(1)">a**</b>*', shows: ['onclick='] },
  { name: 'emphasis splitting a tag', source: '<img *src=x* _onerror_=alert(1)>', shows: ['alert(1)>'] },
  { name: 'strikethrough around an iframe', source: '~~<iframe src="javascript:alert(1)">~~', shows: ['<iframe src="javascript:alert(1)">'] },
  { name: 'nested emphasis and link', source: '*[**<svg onload=alert(1)>**](javascript:alert(1))*', shows: ['<svg onload=alert(1)>'] },
  { name: 'link text with a tag', source: '[<img src=x onerror=alert(1)>](https://a.example)', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'link inside link', source: '[a [b](https://b.example) c](https://a.example)' },
  { name: 'emphasis inside a link target', source: '[a](https://a.example/*"onclick=alert(1)*)' },
];

const AUTOLINK_VECTORS: XssVector[] = [
  { name: 'autolink with an attribute', source: '<http://a.example" onmouseover="alert(1)>', shows: ['onmouseover='] },
  { name: 'autolink with a single quote', source: "<http://a.example' onmouseover='alert(1)>" },
  { name: 'autolink with a tag after it', source: '<https://a.example/><img src=x onerror=alert(1)>', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'bare www link with an attribute', source: 'www.x.com/"onclick=alert(1)', shows: ['onclick=alert(1)'] },
  { name: 'bare link with a quote', source: 'https://a.example/"onmouseover="alert(1)" x' },
  { name: 'bare link with brackets', source: 'https://a.example/<script>alert(1)</script>', shows: ['alert(1)'] },
  { name: 'bare link with parentheses', source: '(https://a.example/(a)"><b>x</b>)' },
  { name: 'bare link with square brackets', source: 'https://a.example/[x](javascript:alert(1))' },
  { name: 'bare link ending in an entity', source: 'https://a.example/&quot;onclick=alert(1)&quot;' },
  { name: 'bare link with a backtick', source: 'https://a.example/`<img src=x onerror=alert(1)>`' },
  { name: 'mailto with headers', source: 'mailto:a@example.com?subject=x&body=<script>alert(1)</script>' },
  { name: 'email autolink', source: '<a@example.com> and <"a"@example.com> and <a@example.com?subject=x>' },
  { name: 'email with a tag', source: 'a<img src=x onerror=alert(1)>@example.com' },
  { name: 'bare email', source: 'write to reader@example.com"onclick=alert(1)' },
  { name: 'link-looking host with credentials', source: 'https://user:pa"ss@a.example/' },
  { name: 'punycode and unicode host', source: 'https://xn--80ak6aa92e.com/ https://еxample.com/"' },
];

const HTML_VECTORS: XssVector[] = [
  { name: 'script', source: '<script>alert(1)</script>', shows: ['<script>alert(1)</script>'] },
  { name: 'script with a source', source: '<script src="https://evil.example/x.js"></script>', shows: ['<script src='] },
  { name: 'script upper case', source: '<SCRIPT>alert(1)</SCRIPT>', shows: ['<SCRIPT>'] },
  { name: 'script split', source: '<scr<script>ipt>alert(1)</scr</script>ipt>', shows: ['<scr<script>ipt>'] },
  { name: 'image with onerror', source: '<img src=x onerror=alert(1)>', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'image with onerror, no spaces', source: '<img/src=x/onerror=alert(1)>', shows: ['onerror=alert(1)'] },
  { name: 'image with onerror in backticks', source: '<img src=`x` onerror=`alert(1)`>' },
  { name: 'svg with onload', source: '<svg onload=alert(1)>', shows: ['<svg onload=alert(1)>'] },
  { name: 'svg with script', source: '<svg><script>alert(1)</script></svg>' },
  { name: 'svg animate', source: '<svg><animate onbegin=alert(1) attributeName=x dur=1s>' },
  { name: 'svg link', source: '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>' },
  { name: 'iframe', source: '<iframe src="javascript:alert(1)"></iframe>', shows: ['<iframe'] },
  { name: 'iframe srcdoc', source: '<iframe srcdoc="<script>alert(1)</script>">', shows: ['srcdoc'] },
  { name: 'style', source: '<style>*{background:url("javascript:alert(1)")}</style>', shows: ['<style>'] },
  { name: 'style attribute', source: '<p style="background:url(javascript:alert(1))">x</p>' },
  { name: 'link to javascript', source: '<a href="javascript:alert(1)">x</a>', shows: ['<a href="javascript:alert(1)">'] },
  { name: 'link to javascript without quotes', source: '<a href=javascript:alert(1)>x</a>' },
  { name: 'comment', source: '<!-- <img src=x onerror=alert(1)> -->', shows: ['<!--'] },
  { name: 'comment closing early', source: '<!--> <img src=x onerror=alert(1)> -->' },
  { name: 'comment in a tag name', source: '<im<!-- -->g src=x onerror=alert(1)>' },
  { name: 'CDATA', source: '<![CDATA[<img src=x onerror=alert(1)>]]>', shows: ['CDATA'] },
  { name: 'processing instruction', source: '<?xml version="1.0"?><img src=x onerror=alert(1)>' },
  { name: 'doctype', source: '<!DOCTYPE html><img src=x onerror=alert(1)>' },
  { name: 'textarea', source: '<textarea><img src=x onerror=alert(1)></textarea>', shows: ['<textarea>'] },
  { name: 'noscript', source: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', shows: ['<noscript>'] },
  { name: 'template', source: '<template><img src=x onerror=alert(1)></template>', shows: ['<template>'] },
  { name: 'math', source: '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', shows: ['<math>'] },
  { name: 'math link', source: '<math href="javascript:alert(1)">x</math>' },
  { name: 'object', source: '<object data="javascript:alert(1)"></object>' },
  { name: 'embed', source: '<embed src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">' },
  { name: 'form', source: '<form action="javascript:alert(1)"><button>x</button></form>' },
  { name: 'input autofocus', source: '<input autofocus onfocus=alert(1)>' },
  { name: 'details ontoggle', source: '<details open ontoggle=alert(1)>' },
  { name: 'body onload', source: '<body onload=alert(1)>' },
  { name: 'meta refresh', source: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">' },
  { name: 'base href', source: '<base href="javascript:alert(1)//">' },
  { name: 'link stylesheet', source: '<link rel=stylesheet href="https://evil.example/x.css">' },
  { name: 'marquee onstart', source: '<marquee onstart=alert(1)>x</marquee>' },
  { name: 'video source onerror', source: '<video><source onerror=alert(1)></video>' },
  { name: 'event handler upper case', source: '<img src=x ONERROR=alert(1)>' },
  { name: 'event handler mixed case', source: '<img src=x OnErRoR=alert(1)>' },
  { name: 'event handler after a slash', source: '<img src=x/onerror=alert(1)>' },
  { name: 'event handler with entities', source: '<img src=x onerror=&#97;lert(1)>' },
  { name: 'event handler on an allowed element', source: '<p onclick="alert(1)">x</p> <a onmouseover="alert(1)">y</a> <code onfocus=alert(1)>z</code>' },
  { name: 'allowed attributes on other elements', source: '<p class="parley-mention" data-user-id="usr_x" href="https://a.example" start="1">x</p><ol start="1 onclick=alert(1)"><li>y</li></ol>' },
  { name: 'allowed attributes with hostile values', source: '<code class="x onmouseover=alert(1)">a</code><span data-user-id="usr_x&quot; onclick=&quot;alert(1)">b</span><a href="&#106;avascript:alert(1)" rel="opener">c</a>' },
  { name: 'class on an allowed element', source: '<span class="parley-mention" data-user-id="usr_x">@Admin</span>', shows: ['<span class='] },
  { name: 'unclosed image', source: '<img src=x onerror=alert(1)//', shows: ['onerror=alert(1)'] },
  { name: 'unclosed script', source: '<script>alert(1)', shows: ['<script>alert(1)'] },
  { name: 'unclosed attribute', source: '<a href="javascript:alert(1)>x</a>' },
  { name: 'tag across lines', source: '<img\nsrc=x\nonerror=alert(1)\n>' },
  { name: 'html block followed by markdown', source: '<div>\n\n*x* <img src=x onerror=alert(1)>\n\n</div>' },
  { name: 'closing tag with attributes', source: '</p onclick=alert(1)><p>' },
];

const CODE_VECTORS: XssVector[] = [
  { name: 'fence info breaking out', source: '```"><img src=x onerror=alert(1)>\nx\n```' },
  { name: 'fence info with a handler', source: '```js onclick=alert(1)\nlet a = 1;\n```' },
  { name: 'fence info with a quote', source: '```js"onmouseover="alert(1)\nlet a = 1;\n```' },
  { name: 'fence info with entities', source: '```&quot;&gt;&lt;svg/onload=alert(1)&gt;\nx\n```' },
  { name: 'tilde fence info', source: "~~~'><script>alert(1)</script>\nx\n~~~" },
  { name: 'highlighted code with HTML', source: '```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```', shows: ['<script>alert(1)</script>'] },
  { name: 'highlighted JavaScript with HTML in strings', source: '```js\nel.innerHTML = "<img src=x onerror=alert(1)>";\nfunction f() { class A extends B {} }\n```', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'highlighted XML with CDATA', source: '```xml\n<![CDATA[<script>alert(1)</script>]]>\n```', shows: ['<script>alert(1)</script>'] },
  { name: 'highlighted Markdown with a link', source: '```markdown\n[x](javascript:alert(1))\n```', shows: ['javascript:alert(1)'] },
  { name: 'unknown language', source: '```klingon\n<img src=x onerror=alert(1)>\n```', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'indented code', source: '    <script>alert(1)</script>', shows: ['<script>alert(1)</script>'] },
  { name: 'inline code', source: '`<img src=x onerror=alert(1)>`', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'unclosed fence', source: '```js\n</code></pre><img src=x onerror=alert(1)>', shows: ['<img src=x onerror=alert(1)>'] },
];

const MENTION_VECTORS: XssVector[] = [
  { name: 'mention of a hostile name', source: 'hi @[x](usr_x) and @[q](usr_q)' },
  { name: 'mention typed with a tag', source: '@[<img src=x onerror=alert(1)>](usr_x)' },
  { name: 'unknown mention typed with a tag', source: '@[<img src=x onerror=alert(1)>](usr_nobody)', shows: ['<img src=x onerror=alert(1)>'] },
  { name: 'mention typed with quotes', source: `@["onmouseover="alert(1)](usr_q) @['x'](usr_nobody)` },
  { name: 'mention with an odd id', source: '@[x](usr_x"onclick="alert(1)) @[x](usr_X) @[x](usr_x/../y) @[x](usr_<b>)' },
  { name: 'mention id as a link', source: '@[x](javascript:alert(1)) @[x](usr_x:alert(1))' },
  { name: 'mention inside a link', source: '[@[x](usr_x)](javascript:alert(1)) [a @[x](usr_q)](https://a.example)' },
  { name: 'mention inside emphasis and code', source: '*@[x](usr_x)* `@[x](usr_q)`' },
  { name: 'mention next to a tag', source: '<b>@[x](usr_x)</b>', shows: ['<b>', '</b>'] },
  { name: 'mention with entities', source: '@[&lt;script&gt;](usr_nobody) @[&#106;](usr_x)' },
];

const TITLE_VECTORS: XssVector[] = [
  { name: 'title with a double quote', source: '[a](https://a.example "x\\" onmouseover=\\"alert(1)")' },
  { name: 'title with a single quote', source: "[a](https://a.example 'x\\' onmouseover=\\'alert(1)')" },
  { name: 'title with a tag', source: '[a](https://a.example "<img src=x onerror=alert(1)>")' },
  { name: 'title in parentheses', source: '[a](https://a.example ("><script>alert(1)</script>))' },
  { name: 'reference title with entities', source: '[a][r]\n\n[r]: https://a.example "&quot; onmouseover=&quot;alert(1)"' },
];

const LIST_VECTORS: XssVector[] = [
  { name: 'ordered list start', source: '2147483648. x\n\n999999999. y\n\n0. z' },
  { name: 'list item with a tag', source: '- <img src=x onerror=alert(1)>\n  - <svg onload=alert(1)>', shows: ['<svg onload=alert(1)>'] },
  { name: 'blockquote with a tag', source: '> <script>alert(1)</script>\n> > <img src=x onerror=alert(1)>', shows: ['<script>alert(1)</script>'] },
  { name: 'table syntax', source: '| <img src=x onerror=alert(1)> |\n|---|\n| x |' },
  { name: 'heading and image syntax', source: '# <script>alert(1)</script>\n\n![x" onerror="alert(1)](x)', shows: ['<script>alert(1)</script>'] },
  { name: 'thematic break with a tag', source: '***\n<hr onclick=alert(1)>' },
  { name: 'hard break with a tag', source: 'a  \n<br onclick=alert(1)>\\\nb' },
  { name: 'footnote syntax', source: '[^1]\n\n[^1]: <img src=x onerror=alert(1)>' },
];

/** Inputs that make a careless parser slow (each must render in a moment). */
export const LONG_VECTORS: XssVector[] = [
  { name: '1000 nested quotes', source: `${'>'.repeat(1000)} x` },
  { name: '5000 stars', source: '*'.repeat(5000) },
  { name: '5000 opening brackets', source: '['.repeat(5000) },
  { name: '5000 underscores around a tag', source: `${'_'.repeat(2500)}<img src=x onerror=alert(1)>${'_'.repeat(2500)}` },
  { name: '5000 backticks', source: '`'.repeat(5000) },
  { name: '3000 unfinished links', source: '[a]('.repeat(3000) },
  { name: '5000 angle brackets', source: '<'.repeat(5000) },
  { name: '2000 alternating emphasis', source: '*a**b'.repeat(2000) },
  { name: '1000 nested lists', source: Array.from({ length: 1000 }, (_, depth) => `${'  '.repeat(depth)}- x`).join('\n') },
  { name: '1000 mentions', source: '@[x](usr_x) '.repeat(1000) },
  { name: '1000 bare links', source: 'https://a.example/ '.repeat(1000) },
  { name: 'one long link', source: `https://a.example/${'a'.repeat(9000)}` },
  { name: 'long highlighted code', source: `\`\`\`js\n${'"<b>" + /x/g; '.repeat(700)}\n\`\`\`` },
  { name: '3000 entities', source: '&#106;'.repeat(3000) },
];

export const XSS_VECTORS: XssVector[] = [
  ...LINK_VECTORS,
  ...ENTITY_VECTORS,
  ...EMPHASIS_VECTORS,
  ...AUTOLINK_VECTORS,
  ...HTML_VECTORS,
  ...CODE_VECTORS,
  ...MENTION_VECTORS,
  ...TITLE_VECTORS,
  ...LIST_VECTORS,
  ...LONG_VECTORS,
];

/** An element as the checks see it, read from a parser's tree or from a live page. */
export interface DrawnElement {
  name: string;
  attributes: Array<[string, string]>;
  /** A link's scheme as the browser resolves it (`a.protocol`), after every decoding. */
  protocol?: string;
}

const LINK_PROTOCOLS = ['http:', 'https:', 'mailto:'];
const CLASS_NAMES = /^(?:language-[\w+#.-]+|hljs-[a-z][a-z_-]*|parley-mention)$/;

/**
 * What is wrong with one drawn element, by the rules of a comment's HTML: only ALLOWED_ELEMENTS
 * and their attributes, links to http(s) and mailto carrying `rel`, the renderers' own classes,
 * mention ids as ids are written.
 */
export function offences(element: DrawnElement, allowed: Record<string, string[]>, rel: string): string[] {
  const found: string[] = [];
  const attributes = allowed[element.name];
  if (!attributes) return [`element <${element.name}>`];
  for (const [name, value] of element.attributes) {
    if (/^on/i.test(name) || !attributes.includes(name)) found.push(`attribute ${name} on <${element.name}>`);
    if (name === 'class' && !value.split(/\s+/).every((token) => CLASS_NAMES.test(token))) found.push(`class "${value}"`);
    if (name === 'data-user-id' && !/^usr_[0-9a-z]+$/.test(value)) found.push(`data-user-id "${value}"`);
    if (name === 'start' && !/^\d+$/.test(value)) found.push(`start "${value}"`);
  }
  if (element.name === 'a') {
    const href = element.attributes.find(([name]) => name === 'href')?.[1];
    // A link without href leads nowhere (the sanitizer leaves one where it drops a hostile target).
    if (href !== undefined && !LINK_PROTOCOLS.includes(element.protocol ?? '')) found.push(`link to "${href}" (${element.protocol})`);
    if (element.attributes.find(([name]) => name === 'rel')?.[1] !== rel) found.push(`link without rel "${rel}"`);
  }
  return found;
}

const DARK = `--parley-bg:#17171c;--parley-fg:#ececf1;--parley-muted:#a9a9b4;--parley-accent:#8ab4f8;--parley-accent-fg:#0b1a33;
--parley-border:#3b3b46;--parley-field-border:#7a7a86;--parley-surface:#23232a;--parley-danger:#f2b8b5;color-scheme:dark;
--parley-code-keyword:#ff7b72;--parley-code-string:#a5d6ff;--parley-code-comment:#9ba3ad;--parley-code-number:#79c0ff;
--parley-code-title:#d2a8ff;--parley-code-tag:#7ee787;--parley-code-meta:#ffa657;--parley-code-deletion:#ffdcd7;
--parley-code-deletion-bg:#5c0e14;--parley-code-addition:#aff5b4;--parley-code-addition-bg:#0f3d1e;`;

/**
 * Colours and fonts are custom properties on the host, so a page overrides them from outside
 * (`parley-comments { --parley-accent: #c00 }`); light is the default, `theme="auto"` follows the
 * reader's system. Sides are logical (inline-start, inline-end), so a right-to-left widget mirrors;
 * only the form's hidden field is placed physically, off the page's left, where no scroll reaches.
 */
export const STYLES = `
:host{display:block;--parley-bg:#fff;--parley-fg:#1d1d22;--parley-muted:#5a5a66;--parley-accent:#0b57d0;--parley-accent-fg:#fff;
--parley-border:#d5d5dd;--parley-field-border:#85858f;--parley-surface:#f4f4f7;--parley-danger:#b3261e;color-scheme:light;
--parley-code-keyword:#b3261e;--parley-code-string:#0a3069;--parley-code-comment:#57606a;--parley-code-number:#0550ae;
--parley-code-title:#6639ba;--parley-code-tag:#116329;--parley-code-meta:#953800;--parley-code-deletion:#82071e;
--parley-code-deletion-bg:#ffebe9;--parley-code-addition:#116329;--parley-code-addition-bg:#dafbe1;
--parley-mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
--parley-font:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;--parley-font-size:15px;--parley-radius:6px;
color:var(--parley-fg);background:var(--parley-bg);font:var(--parley-font-size)/1.5 var(--parley-font);padding:8px 0}
:host([theme=dark]){${DARK}}
@media (prefers-color-scheme:dark){:host([theme=auto]){${DARK}}}
*{box-sizing:border-box}
[hidden]{display:none!important}
h2{font-size:1.15em;margin:0}
.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;margin-bottom:12px}
label{font-size:.9em;color:var(--parley-muted)}
select,textarea,input{font:inherit;color:var(--parley-fg);background:var(--parley-bg);border:1px solid var(--parley-field-border);border-radius:var(--parley-radius);padding:6px 8px}
select{margin-inline-start:6px}
textarea{width:100%;min-height:4.5em;resize:vertical;display:block;margin:4px 0 8px}
input{width:100%;max-width:20em;display:block;margin:4px 0 8px}
input.check{display:inline;width:auto;margin:0;margin-inline-end:6px;vertical-align:middle}
form{margin:8px 0 12px}
.who{font-size:.9em;color:var(--parley-muted);margin:0 0 4px}
button{font:inherit;font-size:.88em;cursor:pointer;color:var(--parley-muted);background:none;border:1px solid transparent;border-radius:var(--parley-radius);padding:2px 6px;min-height:28px}
button:hover{color:var(--parley-fg);background:var(--parley-surface)}
button[aria-pressed=true]{color:var(--parley-accent);border-color:var(--parley-accent);font-weight:600}
button.primary{color:var(--parley-accent-fg);background:var(--parley-accent);border-color:var(--parley-accent);padding:6px 14px;font-weight:600}
button.primary:hover{filter:brightness(1.1)}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:2px solid var(--parley-accent);outline-offset:2px}
.c{margin:14px 0 0}
.c.linked{outline:2px solid var(--parley-accent);outline-offset:4px;border-radius:var(--parley-radius)}
.body{padding:2px 0}
.meta{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:baseline;font-size:.9em;color:var(--parley-muted)}
.author{font-weight:600;color:var(--parley-fg)}
.edited::before{content:"·";content:"·"/"";margin-inline-end:8px}
.badge{font-size:.8em;border:1px solid var(--parley-border);background:var(--parley-surface);color:var(--parley-fg);border-radius:99px;padding:0 8px}
.badge.pinned,.unread{color:var(--parley-accent);border-color:var(--parley-accent);font-weight:600}
.author-badge{border-radius:4px;padding:0 5px}
.bar{display:flex;flex-wrap:wrap;align-items:end;justify-content:space-between;gap:4px 12px;margin:4px 0 0;border-bottom:1px solid var(--parley-border)}
[role=tablist]{display:flex;gap:2px}
[role=tab]{border-radius:var(--parley-radius) var(--parley-radius) 0 0;margin-bottom:-1px}
[role=tab][aria-selected=true]{color:var(--parley-fg);border-color:var(--parley-border);border-bottom-color:var(--parley-bg);background:var(--parley-bg);font-weight:600}
[role=toolbar]{display:flex;flex-wrap:wrap;gap:2px;padding-bottom:2px}
.tool.bold{font-weight:700}
.tool.italic{font-style:italic}
.tool.code{font-family:var(--parley-mono)}
.editor textarea{margin-top:8px}
.preview{min-height:4.5em;border:1px solid var(--parley-border);border-radius:var(--parley-radius);padding:6px 8px;margin:8px 0}
.mentions{list-style:none;margin:-4px 0 8px;padding:4px;border:1px solid var(--parley-border);border-radius:var(--parley-radius);background:var(--parley-bg);max-width:20em;box-shadow:0 4px 14px rgb(0 0 0/.15)}
.mentions li{padding:4px 8px;border-radius:4px;cursor:pointer}
.mentions [aria-selected=true]{background:var(--parley-accent);color:var(--parley-accent-fg)}
.text{margin:2px 0 4px}
.content{overflow-wrap:anywhere}
.content>*{margin:0 0 .5em}
.content>:last-child{margin-bottom:0}
.content ul,.content ol{padding-inline-start:1.6em}
.content li>p{margin:0}
.content blockquote{padding:0;padding-inline-start:10px;border-inline-start:3px solid var(--parley-border);color:var(--parley-muted)}
.content hr{border:0;border-top:1px solid var(--parley-border)}
.content code{font:.9em/1.45 var(--parley-mono);background:var(--parley-surface);border-radius:4px;padding:1px 4px}
.content pre{overflow-x:auto;background:var(--parley-surface);border:1px solid var(--parley-border);border-radius:var(--parley-radius);padding:8px 10px;overflow-wrap:normal}
.content pre code{padding:0;background:none}
.parley-mention{color:var(--parley-accent);font-weight:600}
.hljs-keyword,.hljs-selector-tag,.hljs-doctag,.hljs-template-tag,.hljs-type{color:var(--parley-code-keyword)}
.hljs-string,.hljs-regexp,.hljs-char{color:var(--parley-code-string)}
.hljs-comment,.hljs-quote{color:var(--parley-code-comment);font-style:italic}
.hljs-number,.hljs-literal,.hljs-built_in,.hljs-symbol,.hljs-attr,.hljs-attribute,.hljs-variable,.hljs-template-variable,.hljs-selector-attr,.hljs-selector-pseudo,.hljs-link{color:var(--parley-code-number)}
.hljs-title,.hljs-section{color:var(--parley-code-title)}
.hljs-tag,.hljs-name,.hljs-selector-id,.hljs-selector-class,.hljs-bullet{color:var(--parley-code-tag)}
.hljs-meta,.hljs-params,.hljs-subst,.hljs-property{color:var(--parley-code-meta)}
.hljs-section,.hljs-strong{font-weight:600}
.hljs-emphasis{font-style:italic}
.hljs-deletion{color:var(--parley-code-deletion);background:var(--parley-code-deletion-bg)}
.hljs-addition{color:var(--parley-code-addition);background:var(--parley-code-addition-bg)}
.deleted{font-style:italic;color:var(--parley-muted)}
a{color:var(--parley-accent)}
.actions{display:flex;flex-wrap:wrap;gap:2px 4px;align-items:center}
.actions.mod{border:1px dashed var(--parley-border);border-radius:var(--parley-radius);margin:4px 0 0;padding:2px}
.count{font-size:.88em;color:var(--parley-muted);padding:2px 8px}
.tally{display:inline-flex;align-items:baseline;gap:4px}
.ask{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px}
.retry{margin-inline-start:8px}
.sep{width:1px;height:16px;background:var(--parley-border);margin:0 4px}
.replies{margin-inline-start:10px;padding-inline-start:14px;border-inline-start:2px solid var(--parley-border)}
.replies .replies .replies .replies .replies{margin-inline-start:0;padding-inline-start:8px}
.msg{margin:4px 0;font-size:.9em;color:var(--parley-muted)}
.msg:empty,.unread:empty{display:none}
.unread{margin-inline-start:6px}
.msg.error{color:var(--parley-danger)}
.more{margin-top:14px}
.feed{font-size:.85em;margin:16px 0 0}.feed a{color:var(--parley-muted)}
.new{display:block;min-height:32px;margin:4px 0;color:var(--parley-accent);border-color:var(--parley-accent)}
.new[aria-hidden=true]{visibility:hidden}
.reader{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;margin:0 0 8px}
.reader .who{margin:0;flex:1 1 14em}
.reader .msg{margin:0;flex:1 1 100%}
.reader button[aria-busy=true]{cursor:progress}
.reader button,dialog button{color:var(--parley-fg);border-color:var(--parley-border);min-height:32px;padding:4px 10px}
.reader button.primary,dialog button.primary{color:var(--parley-accent-fg);border-color:var(--parley-accent);padding:6px 14px}
.avatar{width:32px;height:32px;border-radius:50%;flex:none;object-fit:cover}
.notice{border:1px solid var(--parley-border);background:var(--parley-surface);border-radius:var(--parley-radius);padding:8px 12px;margin:0 0 10px}
dialog{color:var(--parley-fg);background:var(--parley-bg);border:1px solid var(--parley-border);border-radius:10px;padding:16px 20px;
width:min(32em,calc(100vw - 16px));max-height:calc(100vh - 16px);box-shadow:0 10px 40px rgb(0 0 0/.35)}
dialog::backdrop{background:rgb(0 0 0/.5)}
.head{display:flex;align-items:center;justify-content:space-between;gap:8px;margin:0 0 14px}
h3{font-size:1.15em;margin:0}
h4{font-size:1em;margin:0 0 6px}
dialog input{max-width:none}
dialog form{margin:0}
dialog form button{margin:0;margin-inline-end:8px}
.providers{display:grid;gap:8px}
button.provider{width:100%;min-height:42px;font-size:1em;font-weight:600}
.or{display:flex;align-items:center;gap:10px;color:var(--parley-muted);margin:14px 0}
.or::before,.or::after{content:"";flex:1;border-top:1px solid var(--parley-border)}
dialog section{border-top:1px solid var(--parley-border);padding:12px 0}
dialog section:first-child{border-top:0;padding-top:0}
dialog section p{margin:0 0 8px}
.inline{display:flex;flex-wrap:wrap;align-items:end;gap:4px 8px}
.inline label{flex-basis:100%}
.inline input{flex:1 1 12em;margin:0}
.ways,.mine{list-style:none;margin:0;padding:0}
.ways li,.mine li{display:flex;flex-wrap:wrap;gap:2px 10px;align-items:baseline;padding:4px 0}
.ways li button{margin-inline-start:auto}
.mine a{overflow-wrap:anywhere}
.when{font-size:.85em;color:var(--parley-muted)}
.leave .actions{gap:8px}
button.danger,dialog button.danger{color:var(--parley-danger);border-color:var(--parley-danger)}
.confirm{margin:10px 0 0;padding:10px 12px;border:1px solid var(--parley-danger);border-radius:var(--parley-radius)}
.confirm button{margin:0;margin-inline-end:8px}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;

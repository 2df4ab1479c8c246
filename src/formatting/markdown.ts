import hljs from 'highlight.js/lib/common';
import MarkdownIt, { type StateCore } from 'markdown-it';
import { mentionRule, renderMention, type MentionNames } from './mentions.ts';

/** Schemes a link may have; everything else (javascript:, data:, vbscript:, file:, …) stays text. */
export const LINK_SCHEMES = /^(?:https?:|mailto:)/i;

/** Attributes every link of a comment carries: nobody vouches for it, and it may not reach back into the page. */
export const LINK_REL = 'nofollow ugc noopener';

/**
 * A fenced block in a language the highlighter knows is highlighted (class names only, themed by
 * the widget's light and dark styles); any other is escaped and shown as it is. No guessing the
 * language of an unmarked block: it is slow and often wrong.
 */
function highlight(code: string, language: string): string {
  const known = language !== '' && hljs.getLanguage(language) !== undefined;
  if (!known) return '';
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

/** What a fence's info string may name as its language: a word, as `js`, `c++`, `objective-c` or `f#` are. */
const LANGUAGE_NAME = /^[\w+#.-]{1,40}$/;

/**
 * A fence keeps only the first word of its info string, and only when it reads as a language
 * name: it becomes the code's class, and quotes, angle brackets or entities have no place there.
 */
function fenceLanguages(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'fence') continue;
    const [language = ''] = token.info.trim().split(/\s+/);
    token.info = LANGUAGE_NAME.test(language) ? language : '';
  }
}

/**
 * CommonMark with strikethrough and bare links, as a comment needs it: raw HTML is shown as text,
 * images and headings are not drawn (a comment is not a document, and must not add to the page's
 * outline or load anything), and every link leaves with LINK_REL.
 */
function commentMarkdown(): MarkdownIt {
  const md = new MarkdownIt('commonmark', { html: false, linkify: true, highlight, langPrefix: 'language-' });
  md.enable(['strikethrough', 'linkify']);
  md.disable(['image', 'heading', 'lheading', 'html_block', 'html_inline']);
  md.linkify.set({ fuzzyEmail: false });
  md.core.ruler.after('block', 'fence_language', fenceLanguages);
  md.validateLink = (url) => LINK_SCHEMES.test(url.trim());
  md.normalizeLinkText = (url) => url;
  md.inline.ruler.before('link', 'mention', mentionRule);
  md.renderer.rules.mention = (tokens, index, _options, env: RenderEnv) => renderMention(tokens[index], env.names);
  const drawLink = md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
  md.renderer.rules.link_open = (tokens, index, options, env, self) => {
    tokens[index].attrSet('rel', LINK_REL);
    return drawLink(tokens, index, options, env, self);
  };
  return md;
}

interface RenderEnv {
  names: MentionNames;
}

const markdown = commentMarkdown();

export function renderMarkdown(source: string, names: MentionNames): string {
  return markdown.render(source, { names } satisfies RenderEnv);
}

/** The same bare-link finder, for plain text. */
export const linkFinder = markdown.linkify;

import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';
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

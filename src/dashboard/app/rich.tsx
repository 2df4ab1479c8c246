import type { ComponentChildren } from 'preact';

type Tag = (children: string) => ComponentChildren;

const BUILT_IN: Record<string, Tag> = {
  strong: (children) => <strong>{children}</strong>,
  code: (children) => <code>{children}</code>,
};

/**
 * A formatted message whose `<strong>`, `<code>` and named tags (`<link>`) are drawn as markup, so
 * that a sentence with a link or an emphasis stays one message for translators. Only for messages
 * whose values are not someone's text: a tag typed into a name would be drawn too.
 */
export function Rich(props: { text: string; tags?: Record<string, Tag> }) {
  const tags = { ...BUILT_IN, ...props.tags };
  const parts: ComponentChildren[] = [];
  const pattern = /<(\w+)>(.*?)<\/\1>/gs;
  let last = 0;
  for (const match of props.text.matchAll(pattern)) {
    const draw = tags[match[1]];
    if (!draw) continue;
    parts.push(props.text.slice(last, match.index), draw(match[2]));
    last = match.index + match[0].length;
  }
  parts.push(props.text.slice(last));
  return <>{parts}</>;
}

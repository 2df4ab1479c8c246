const EXCERPT_LENGTH = 200;

/** A comment's first 200 characters, cut on a character (never inside a surrogate pair), with "…" when cut. */
export function excerpt(content: string | null): string | null {
  // UTF-16 length bounds the characters: most contents need no counting.
  if (content === null || content.length <= EXCERPT_LENGTH) return content;
  let end = 0;
  for (let characters = 0; characters < EXCERPT_LENGTH && end < content.length; characters += 1) end += content.codePointAt(end)! > 0xffff ? 2 : 1;
  return end >= content.length ? content : `${content.slice(0, end)}…`;
}

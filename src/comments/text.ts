import { invalid } from '../errors.ts';

// C0 controls except tab (\t) and newline (\n), DEL, and the C1 range.
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/**
 * Normalises user text the same way everywhere: CRLF to LF, NFC, trimmed; then enforces the
 * contract's bounds. Returns the stored form.
 */
export function cleanText(path: string, raw: string, maxLength: number): string {
  if (!raw.isWellFormed()) throw invalid(path, 'must be valid Unicode text');
  const text = raw.replace(/\r\n?/g, '\n').normalize('NFC').trim();
  if (FORBIDDEN_CONTROL.test(text)) throw invalid(path, 'must not contain control characters other than newline and tab');
  const length = [...text].length;
  if (length < 1) throw invalid(path, 'must not be empty');
  if (length > maxLength) throw invalid(path, `must be at most ${maxLength} characters (got ${length})`);
  return text;
}

export const MAX_CONTENT = 10_000;
export const MAX_AUTHOR_NAME = 100;

/**
 * Names are refused when they hold bidirectional controls (U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069) or zero-width characters (U+200B-U+200D, U+2060, U+FEFF): unseen, they make a name
 * read as another one (an override turns "evil" into "live") or look like a name it is not. As a
 * JSON Schema pattern, so the API reference states the rule.
 */
export const NAME_PATTERN = '^[^\\u200B-\\u200F\\u202A-\\u202E\\u2060\\u2066-\\u2069\\uFEFF]*$';

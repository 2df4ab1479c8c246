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

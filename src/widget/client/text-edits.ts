/// <reference lib="dom" />

/** A change to a text field: `[start, end)` becomes `insert`, then `select` is selected. */
export interface TextEdit {
  start: number;
  end: number;
  insert: string;
  select: [number, number];
}

/**
 * Makes an edit as typing would, so the browser's undo takes it back: `insertText` keeps it in the
 * undo history, where `setRangeText` (used where the command is refused) does not.
 */
export function applyEdit(field: HTMLTextAreaElement, edit: TextEdit): void {
  field.focus();
  field.setSelectionRange(edit.start, edit.end);
  if (!document.execCommand('insertText', false, edit.insert)) {
    field.setRangeText(edit.insert, edit.start, edit.end, 'end');
    field.dispatchEvent(new Event('input', { bubbles: true }));
  }
  field.setSelectionRange(...edit.select);
}

/** The selection between two markers (bold, italic, inline code), or the markers taken off where they are already around it. */
function wrap(value: string, start: number, end: number, marker: string): TextEdit {
  const size = marker.length;
  const inner = value.slice(start, end);
  if (value.slice(start - size, start) === marker && value.slice(end, end + size) === marker) {
    return { start: start - size, end: end + size, insert: inner, select: [start - size, end - size] };
  }
  return { start, end, insert: marker + inner + marker, select: [start + size, end + size] };
}

/** `[label](address)`: an address that was selected goes in the parentheses, else the placeholder address is selected to be typed over. */
function link(value: string, start: number, end: number): TextEdit {
  const selected = value.slice(start, end);
  if (/^https?:\/\/\S+$/.test(selected)) return { start, end, insert: `[](${selected})`, select: [start + 1, start + 1] };
  const address = start + selected.length + 3;
  return { start, end, insert: `[${selected}](https://)`, select: [address, address + 8] };
}

/** Every line the selection touches quoted with `> `, or unquoted where they all are already. */
function quote(value: string, start: number, end: number): TextEdit {
  const from = value.lastIndexOf('\n', start - 1) + 1;
  const next = value.indexOf('\n', end);
  const to = next === -1 ? value.length : next;
  const lines = value.slice(from, to).split('\n');
  const quoted = lines.every((line) => line.startsWith('> '));
  const insert = lines.map((line) => (quoted ? line.slice(2) : `> ${line}`)).join('\n');
  return { start: from, end: to, insert, select: [from, from + insert.length] };
}

/** Inline code for part of a line; a fenced block, on lines of its own, for several lines. */
function code(value: string, start: number, end: number): TextEdit {
  const selected = value.slice(start, end);
  if (!selected.includes('\n')) return wrap(value, start, end, '`');
  const before = start > 0 && value[start - 1] !== '\n' ? '\n' : '';
  const first = start + before.length + 4;
  return { start, end, insert: `${before}\`\`\`\n${selected}\n\`\`\`\n`, select: [first, first + selected.length] };
}

/** The toolbar's formats, each an edit of the Markdown source around the selection. */
export const FORMATS = {
  bold: (value: string, start: number, end: number) => wrap(value, start, end, '**'),
  italic: (value: string, start: number, end: number) => wrap(value, start, end, '_'),
  link,
  quote,
  code,
};

export type Format = keyof typeof FORMATS;

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** Builds an element; strings become text nodes, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/**
 * A form's submit handler: the page does not navigate, one submission runs at a time (the form is
 * aria-busy meanwhile), and a failure goes to `failed`.
 */
export function submitted(run: () => Promise<void>, failed: (error: unknown) => void): (event: Event) => Promise<void> {
  let busy = false;
  return async (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    if (busy) return;
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await run();
    } catch (error) {
      failed(error);
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  };
}

let dialogs = 0;

/**
 * Opens a modal dialog in the widget (the browser keeps the focus in it, and Escape closes it) with
 * a heading and a Close button; closed, it goes away and the focus goes back where it was.
 */
export function modal(root: HTMLElement, title: string, closeLabel: string, ...content: Child[]): HTMLDialogElement {
  const id = `parley-dialog-${++dialogs}`;
  const opener = (root.getRootNode() as ShadowRoot).activeElement as HTMLElement | null;
  const dialog = h(
    'dialog',
    { 'aria-labelledby': id },
    h('div', { class: 'head' }, h('h3', { id }, title), h('button', { type: 'button', class: 'close', onclick: () => dialog.close() }, closeLabel)),
    ...content,
  );
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener?.isConnected) opener.focus();
  });
  root.append(dialog);
  dialog.showModal();
  return dialog;
}

/**
 * Shows a comment's HTML, as the server rendered and sanitized it when the comment was written. A
 * code block wider than the widget scrolls, and the keyboard can reach it to scroll it.
 */
export function showHtml(element: HTMLElement, html: string): HTMLElement {
  element.innerHTML = html.trim();
  element.querySelectorAll('pre').forEach((pre) => (pre.tabIndex = 0));
  return element;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];
const formats = new Map<string, Intl.RelativeTimeFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The full date for a tooltip; formatters are cached because building one costs more than using it. */
export function fullDate(iso: string, lang: string): string {
  let format = dateFormats.get(lang);
  if (!format) dateFormats.set(lang, (format = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeStyle: 'short' })));
  return format.format(new Date(iso));
}

export function relativeTime(iso: string, lang: string, now = Date.now()): string {
  let format = formats.get(lang);
  if (!format) formats.set(lang, (format = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })));
  const seconds = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A count as the reader's language writes numbers (Persian digits in fa). */
export function numberText(count: number, lang: string): string {
  let format = numberFormats.get(lang);
  if (!format) numberFormats.set(lang, (format = new Intl.NumberFormat(lang)));
  return format.format(count);
}

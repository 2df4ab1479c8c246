/// <reference lib="dom" />
import { showProblem } from './api.ts';
import { h, showHtml } from './dom.ts';
import { MentionPicker, type Participant } from './mention-picker.ts';
import type { Translate } from './strings.ts';
import { applyEdit, FORMATS, type Format } from './text-edits.ts';

export interface EditorOptions {
  field: HTMLTextAreaElement;
  t: Translate;
  /** The site's formatting: Markdown gets the Write and Preview tabs and the toolbar. */
  markdown: boolean;
  /** The content as the site would show it (POST /v1/comments/preview): its HTML. */
  preview: (content: string) => Promise<string>;
  participants: () => Promise<Participant[]>;
  send: () => void;
}

export interface Editor {
  element: HTMLElement;
  /** Back to writing, after the comment was sent. */
  reset: () => void;
}

const TOOLS: Format[] = ['bold', 'italic', 'link', 'quote', 'code'];
/** Ctrl/⌘ with these letters formats the selection. */
const SHORTCUTS: Partial<Record<Format, string>> = { bold: 'B', italic: 'I', link: 'K' };

/**
 * The comment field with what helps write it: @-mentions of the thread's participants, Ctrl/⌘+Enter
 * to send, and on a Markdown site the Write and Preview tabs and a toolbar that edits the source.
 */
export function editor(options: EditorOptions): Editor {
  const { field, t } = options;
  const picker = new MentionPicker(field, options.participants, t);
  const shortcuts = (event: KeyboardEvent) => {
    // AltGr is Ctrl+Alt on some keyboards: the characters it types are not shortcuts.
    if (picker.keydown(event) || !(event.ctrlKey || event.metaKey) || event.altKey) return;
    const format = options.markdown ? TOOLS.find((tool) => SHORTCUTS[tool] === event.key.toUpperCase()) : undefined;
    if (event.key === 'Enter') options.send();
    else if (format) formatSelection(field, format);
    else return;
    event.preventDefault();
  };
  field.addEventListener('keydown', shortcuts);
  const write = h('div', {}, field, picker.list, picker.status);
  if (!options.markdown) return { element: write, reset: () => picker.close() };
  const markdown = markdownEditor(options, write);
  return { element: markdown.element, reset: () => (picker.close(), markdown.reset()) };
}

function formatSelection(field: HTMLTextAreaElement, format: Format): void {
  applyEdit(field, FORMATS[format](field.value, field.selectionStart, field.selectionEnd));
}

let editors = 0;

/** The Write and Preview tabs (the tabs pattern: arrow keys move between them) and the formatting toolbar. */
function markdownEditor(options: EditorOptions, write: HTMLElement): Editor {
  const { field, t } = options;
  const id = `parley-editor-${++editors}`;
  const previewBody = h('div', { class: 'content' });
  const previewPanel = h('div', { id: `${id}-preview`, role: 'tabpanel', class: 'preview', 'aria-labelledby': `${id}-tab-preview`, tabindex: 0, hidden: true }, previewBody);
  write.id = `${id}-write`;
  write.setAttribute('role', 'tabpanel');
  write.setAttribute('aria-labelledby', `${id}-tab-write`);
  const tab = (name: 'write' | 'preview', label: string) =>
    h('button', { type: 'button', role: 'tab', id: `${id}-tab-${name}`, 'aria-controls': `${id}-${name}`, onclick: () => select(name) }, label);
  const tabs = [tab('write', t('tabWrite')), tab('preview', t('tabPreview'))];
  const toolbar = h(
    'div',
    { role: 'toolbar', 'aria-label': t('formatting'), 'aria-controls': field.id },
    ...TOOLS.map((format) =>
      h(
        'button',
        {
          type: 'button',
          class: `tool ${format}`,
          'aria-keyshortcuts': SHORTCUTS[format] && `Control+${SHORTCUTS[format]} Meta+${SHORTCUTS[format]}`,
          onclick: () => formatSelection(field, format),
        },
        t(`tool_${format}`),
      ),
    ),
  );
  let shown: string | null = null;
  let asked = 0;

  const showPreview = async () => {
    const content = field.value.trim();
    if (content === shown) return;
    const call = ++asked;
    previewBody.replaceChildren(h('p', { class: 'msg' }, content === '' ? t('previewEmpty') : t('previewLoading')));
    if (content === '') return void (shown = content);
    try {
      const html = await options.preview(content);
      if (call !== asked) return;
      showHtml(previewBody, html);
      shown = content;
    } catch (error) {
      if (call !== asked) return;
      previewBody.replaceChildren(h('p', { class: 'msg' }));
      showProblem(previewBody.firstElementChild as HTMLElement, error, t);
    }
  };

  const select = (name: 'write' | 'preview', focus = false) => {
    const previewing = name === 'preview';
    tabs.forEach((button, index) => {
      const selected = index === Number(previewing);
      button.setAttribute('aria-selected', String(selected));
      button.tabIndex = selected ? 0 : -1;
      if (selected && focus) button.focus();
    });
    write.hidden = previewing;
    previewPanel.hidden = !previewing;
    toolbar.hidden = previewing;
    if (previewing) void showPreview();
  };
  select('write');

  const tablist = h('div', { role: 'tablist', 'aria-label': t('formatting') }, ...tabs);
  tablist.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight' && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    const previewing = tabs[1].getAttribute('aria-selected') === 'true';
    select(event.key === 'Home' ? 'write' : event.key === 'End' || !previewing ? 'preview' : 'write', true);
  });
  rovingFocus(toolbar);
  // A form sent from the Preview tab with an empty field: the browser points at the field, which must be in sight.
  field.addEventListener('invalid', () => select('write'));
  const element = h('div', { class: 'editor' }, h('div', { class: 'bar' }, tablist, toolbar), write, previewPanel);
  element.addEventListener('keydown', (event) => {
    if (event.target !== field && event.key === 'Enter' && (event.ctrlKey || event.metaKey)) options.send();
  });
  return { element, reset: () => ((shown = null), select('write')) };
}

/** One stop in the tab order for the toolbar; the arrow keys move between its buttons. */
function rovingFocus(toolbar: HTMLElement): void {
  const buttons = Array.from(toolbar.querySelectorAll('button'));
  buttons.forEach((button, index) => (button.tabIndex = index === 0 ? 0 : -1));
  toolbar.addEventListener('keydown', (event) => {
    const at = buttons.indexOf(event.target as HTMLButtonElement);
    // Right to left, the arrows follow the buttons as drawn: the next one is on the left.
    const rtl = getComputedStyle(toolbar).direction === 'rtl';
    const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 }[event.key];
    const to = event.key === 'Home' ? 0 : event.key === 'End' ? buttons.length - 1 : step === undefined ? null : (at + step + buttons.length) % buttons.length;
    if (at === -1 || to === null) return;
    event.preventDefault();
    buttons[at].tabIndex = -1;
    buttons[to].tabIndex = 0;
    buttons[to].focus();
  });
}

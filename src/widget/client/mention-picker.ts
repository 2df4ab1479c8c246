/// <reference lib="dom" />
import { h } from './dom.ts';
import type { Translate } from './strings.ts';
import { applyEdit } from './text-edits.ts';

/** A person who wrote in the thread (GET /v1/comments/participants). */
export interface Participant {
  user_id: string;
  name: string;
}

/** The start of a name typed after an `@` that begins a word, up to the caret. */
const TYPED = /(?:^|\s)@(\p{L}[^\n@[\]()]{0,40})$/u;
const SHOWN = 6;

let lists = 0;

/**
 * Suggests the thread's participants while the reader types `@` and the start of a name, and
 * inserts the chosen one as the comment's source keeps a mention: `@[Name](usr_…)`.
 *
 * The field keeps its own role (a textarea may not be a combobox): it owns the listbox through
 * aria-controls, points at the highlighted option with aria-activedescendant, and a status line
 * says how many there are, as the combobox pattern does for a single-line field.
 */
export class MentionPicker {
  readonly list: HTMLUListElement;
  readonly status = h('p', { class: 'sr', role: 'status' });
  #matches: Participant[] = [];
  #active = 0;
  /** Where the typed `@` is. */
  #at = 0;

  constructor(
    private readonly field: HTMLTextAreaElement,
    private readonly participants: () => Promise<Participant[]>,
    private readonly t: Translate,
  ) {
    this.list = h('ul', { id: `parley-mentions-${++lists}`, class: 'mentions', role: 'listbox', 'aria-label': t('mentionList'), hidden: true });
    field.setAttribute('aria-autocomplete', 'list');
    field.setAttribute('aria-haspopup', 'listbox');
    field.setAttribute('aria-controls', this.list.id);
    field.addEventListener('input', () => void this.#suggest());
    field.addEventListener('blur', () => this.close());
  }

  /** The picker's keys while it is open; true when it took the key. */
  keydown(event: KeyboardEvent): boolean {
    if (this.list.hidden || event.ctrlKey || event.metaKey || event.altKey) return false;
    const count = this.#matches.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') this.#highlight((this.#active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
    else if (event.key === 'Enter' || event.key === 'Tab') this.#choose(this.#matches[this.#active]);
    else if (event.key === 'Escape') this.close();
    else return false;
    event.preventDefault();
    return true;
  }

  close(): void {
    this.list.hidden = true;
    this.list.replaceChildren();
    this.status.textContent = '';
    this.field.removeAttribute('aria-activedescendant');
  }

  async #suggest(): Promise<void> {
    const caret = this.field.selectionEnd;
    const typed = this.field.selectionStart === caret ? TYPED.exec(this.field.value.slice(0, caret)) : null;
    if (!typed) return this.close();
    const everyone = await this.participants();
    const prefix = typed[1].toLowerCase();
    // The field may have changed while the participants were fetched: only the latest typing counts.
    if (this.field.selectionEnd !== caret) return;
    this.#matches = everyone.filter((person) => person.name.toLowerCase().startsWith(prefix)).slice(0, SHOWN);
    if (this.#matches.length === 0) return this.close();
    this.#at = caret - typed[1].length - 1;
    this.list.replaceChildren(
      ...this.#matches.map((person, index) =>
        h(
          'li',
          // The field keeps the focus: a click chooses without taking it away.
          { id: `${this.list.id}-${index}`, role: 'option', onmousedown: (event) => event.preventDefault(), onclick: () => this.#choose(person), dir: 'auto' },
          person.name,
        ),
      ),
    );
    this.list.hidden = false;
    this.status.textContent = this.t('mentionsFound', { count: this.#matches.length });
    this.#highlight(0);
  }

  #highlight(index: number): void {
    this.#active = index;
    Array.from(this.list.children).forEach((option, at) => option.setAttribute('aria-selected', String(at === index)));
    this.field.setAttribute('aria-activedescendant', `${this.list.id}-${index}`);
  }

  #choose(person: Participant): void {
    // A name with a bracket or a line break would end the stored form early; the server shows the user's own name anyway.
    const name = person.name.replace(/[\]\n]/g, '');
    const insert = `@[${name}](${person.user_id}) `;
    const end = this.field.selectionEnd;
    this.close();
    applyEdit(this.field, { start: this.#at, end, insert, select: [this.#at + insert.length, this.#at + insert.length] });
  }
}

import { useEffect, useRef } from 'preact/hooks';
import { t, type MessageKey } from '../i18n.ts';
import { Dialog } from '../ui.tsx';

/** The queue's keys as the help lists them (the keys pressed are in queue.tsx). */
export const SHORTCUTS: Array<[string, MessageKey]> = [
  ['j', 'shortcuts.next'],
  ['k', 'shortcuts.previous'],
  ['a', 'shortcuts.approve'],
  ['r', 'shortcuts.remove'],
  ['s', 'shortcuts.spam'],
  ['b', 'shortcuts.ban'],
  ['t', 'shortcuts.thread'],
  ['z', 'shortcuts.undo'],
  ['x', 'shortcuts.select'],
  ['Shift+X', 'shortcuts.selectRange'],
  ['Shift+A', 'shortcuts.approveSelected'],
  ['Shift+R', 'shortcuts.removeSelected'],
  ['Shift+S', 'shortcuts.spamSelected'],
  ['1 2 3 4', 'shortcuts.tabs'],
  ['/', 'shortcuts.search'],
  ['?', 'shortcuts.show'],
];

/** Single-key shortcuts, not while typing in a field or with a modifier held. */
export function useShortcuts(active: boolean, handlers: Record<string, () => unknown>): void {
  // Read when a key is pressed, so a key right after a dialog closes is not lost to a late effect.
  const current = useRef({ active, handlers });
  current.current = { active, handlers };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!current.current.active || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement;
      if (target.closest('input:not([type=checkbox]):not([type=radio]), textarea, select, dialog, [contenteditable]')) return;
      const handler = current.current.handlers[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** The keys of a view (the queue's, unless given) and what they do. */
export function ShortcutHelp(props: { onClose: () => void; keys?: Array<[string, MessageKey]> }) {
  return (
    <Dialog title={t('shortcuts.title')} onClose={props.onClose}>
      <dl class="shortcuts">
        {(props.keys ?? SHORTCUTS).map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{t(what)}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

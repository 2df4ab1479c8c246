import { Component, type ComponentChildren, type FunctionComponent } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../client/api.ts';
import { dateTime, relativeTime, t, type MessageKey } from './i18n.ts';
import { isModifiedClick, navigate } from './router.ts';

/** A link to another dashboard view, followed without reloading the page. */
export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' | undefined }) {
  return (
    <a
      {...props}
      onClick={(event) => {
        if (isModifiedClick(event)) return;
        event.preventDefault();
        navigate(props.href);
      }}
    />
  );
}

export type Load<T> = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ready'; data: T };

/** Loads data for a view, again whenever `deps` change or `reload` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Load<T>, () => Promise<void>, (update: (data: T) => T) => void] {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const data = await load();
      if (mine === generation.current) setResult({ state: 'ready', data });
    } catch (error) {
      if (mine === generation.current) setResult({ state: 'error', error: errorText(error) });
    }
  }, deps);
  useEffect(() => {
    setResult({ state: 'loading' });
    void run();
  }, [run]);
  const update = (change: (data: T) => T) => setResult((current) => (current.state === 'ready' ? { state: 'ready', data: change(current.data) } : current));
  return [result, run, update];
}

/** Draws what is loaded, or says in words that it is loading or what went wrong (with a retry). */
/** `loading` and `failed` are whole sentences of their view ("Loading the keys…", "Could not load the keys: {error}"). */
export function Loaded<T>(props: { load: Load<T>; retry?: () => void; loading: MessageKey; failed: MessageKey; children: (data: T) => ComponentChildren }) {
  if (props.load.state === 'loading') return <p class="note" role="status">{t(props.loading)}</p>;
  if (props.load.state === 'error') {
    return (
      <div class="problem" role="alert">
        <p>{t(props.failed, { error: props.load.error })}</p>
        {props.retry && <button type="button" onClick={props.retry}>{t('ui.tryAgain')}</button>}
      </div>
    );
  }
  return <>{props.children(props.load.data)}</>;
}

/** A table of rows under column headings, scrolling sideways on a narrow screen rather than the page. */
export function Table(props: { columns: ComponentChildren[]; panel?: boolean; children: ComponentChildren }) {
  return (
    <div class={props.panel ? 'table-wrap panel' : 'table-wrap'}>
      <table>
        <thead>
          <tr>
            {props.columns.map((column, index) => (
              <th scope="col" key={index}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/**
 * A component that draws again only when one of its props changed (compared one by one): for the
 * parts of a long view that an action does not touch. Its callers keep their props' identities.
 */
export function pure<P extends object>(render: FunctionComponent<P>) {
  return class Pure extends Component<P> {
    shouldComponentUpdate(next: P) {
      const now = this.props as Record<string, unknown>;
      return Object.keys(next).some((key) => (next as Record<string, unknown>)[key] !== now[key]) || Object.keys(now).length !== Object.keys(next).length;
    }
    render(props: P) {
      return render(props);
    }
  };
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty">{props.children}</div>;
}

export function ErrorNote(props: { error: string | null }) {
  return props.error ? <p class="problem" role="alert">{props.error}</p> : null;
}

/** Copies a text (a secret, a link, the embed snippet) and says so. */
export function CopyButton(props: { text: string; label?: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setDone(t('ui.copied'));
    } catch {
      setDone(t('ui.copyFailed'));
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>{props.label ?? t('ui.copy')}</button>
      <span role="status" class="note">{done}</span>
    </span>
  );
}

/** A modal dialog (the browser's own: focus stays inside, Escape closes it). */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.close();
      // Closed by its own button, the dialog leaves the page before the browser gives the focus back: it is given here.
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class={props.class ?? 'dialog'} aria-label={props.title} onClose={props.onClose}>
      <header class="dialog-head">
        <h2>{props.title}</h2>
        <button type="button" class="plain" aria-label={t('ui.close')} onClick={props.onClose}>✕</button>
      </header>
      {props.children}
    </dialog>
  );
}

/** A form that shows it is busy and says why it was refused. */
export function Form(props: { onSubmit: (data: FormData) => Promise<void>; submit: string; children: ComponentChildren; class?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class={props.class ?? 'form'}
      onSubmit={async (event) => {
        event.preventDefault();
        const form = event.currentTarget;
        setBusy(true);
        setError(null);
        try {
          await props.onSubmit(new FormData(form));
        } catch (failure) {
          setError(errorText(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>{busy ? t('ui.working') : props.submit}</button>
    </form>
  );
}

export const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim();

/** A moment in the dashboard's language, or "never". */
export const when = (iso: string | null) => (iso ? dateTime(iso) : t('ui.never'));

/** "3 minutes ago" for recent times, a date otherwise. */
export const ago = (iso: string) => relativeTime(iso);

/**
 * Messages for everyone (screen readers too): what an action did, or why it was undone. One at a
 * time, a new one taking the old one's place; one may carry a button (Undo) that stays as long as it.
 */
type Notice = { id: number; text: string; kind: 'info' | 'error'; action?: NoticeAction };
export interface NoticeAction {
  label: string;
  run: () => void;
  /** How long the notice and its button stay, in ms (the time the action is possible). */
  for: number;
}
const noticeListeners = new Set<(notice: Notice | null) => void>();
let shownNotice: Notice | null = null;
let noticeTimer: ReturnType<typeof setTimeout> | undefined;
let noticeId = 0;
const showNotice = (notice: Notice | null) => {
  shownNotice = notice;
  noticeListeners.forEach((listener) => listener(notice));
};
export function notify(textOf: string, kind: Notice['kind'] = 'info', action?: NoticeAction): void {
  const notice = { id: ++noticeId, text: textOf, kind, action };
  clearTimeout(noticeTimer);
  showNotice(notice);
  noticeTimer = setTimeout(() => shownNotice === notice && showNotice(null), action?.for ?? (kind === 'error' ? 12_000 : 5_000));
}

/**
 * Where notices show: a corner beside the cards on a wide screen, a strip at the bottom of a narrow
 * one that the views keep clear of (see .notices in styles.css). Always in the page, so a reader
 * hears what arrives in it.
 */
export function Notices() {
  const [notice, setNotice] = useState<Notice | null>(shownNotice);
  useEffect(() => {
    noticeListeners.add(setNotice);
    return () => void noticeListeners.delete(setNotice);
  }, []);
  return (
    <div class={`notices${notice ? ' shown' : ''}`} role="status" aria-live="polite">
      {notice && (
        <p key={notice.id} class={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : undefined}>
          <span>{notice.text}</span>
          {notice.action && (
            <button
              type="button"
              onClick={() => {
                showNotice(null);
                notice.action!.run();
              }}
            >
              {notice.action.label}
            </button>
          )}
        </p>
      )}
    </div>
  );
}

import type * as Dialogs from './dialogs.ts';

export type DialogsModule = typeof Dialogs;

let loading: Promise<DialogsModule> | null = null;
let failures = 0;

/**
 * The sign-in and account dialogs' module, imported once, when a reader first opens one. A failed
 * import is asked for again next time, under another query: a browser may keep a module's failure
 * for the life of the page.
 */
export function loadDialogs(url: string): Promise<DialogsModule> {
  loading ??= (import(failures === 0 ? url : `${url}?retry=${failures}`) as Promise<DialogsModule>).catch((error: unknown) => {
    loading = null;
    failures += 1;
    throw error;
  });
  return loading;
}

import { openAccount as account } from './account.ts';
import type { DialogHost, OpenDialogHost } from './api.ts';
import type { Messages } from './strings.ts';
import BELL_ENGLISH from '../locales/bell/en.json' with { type: 'json' };
import DIALOG_ENGLISH from '../locales/dialogs/en.json' with { type: 'json' };
import { openNotifications as notifications } from './notifications.ts';
import { openSignIn as signIn } from './sign-in.ts';

/**
 * The dialogs' module, embed/account.<hash>.js (src/widget/bundle.ts): the widget imports it the
 * first time a reader opens "Sign in", "Your account" or their notifications. It imports only types of the widget's
 * code, whose helpers come in the DialogHost; it holds the dialogs' English words, under the site's.
 * The bell's panel has its words in a locale file of its own, fetched when it first opens.
 */
const withWords = (host: DialogHost, own: Messages = {}): OpenDialogHost => ({ ...host, t: host.kit.translator(host.lang, { ...DIALOG_ENGLISH, ...own, ...host.messages }) });

export const openSignIn = (host: DialogHost): void => signIn(withWords(host));
export const openAccount = (host: DialogHost): void => account(withWords(host));
export const openNotifications = async (host: DialogHost): Promise<void> => notifications(withWords(host, { ...BELL_ENGLISH, ...(await bellWords(host)) }));

/** The bell's panel's words in the reader's language (`<locale>.bell.json` beside the widget's); English, which this module holds, where there are none. */
async function bellWords(host: DialogHost): Promise<Messages> {
  if (host.lang === 'en') return {};
  const response = await fetch(`${host.localesUrl}/${host.lang}.bell.json`, { credentials: 'omit' }).catch(() => null);
  return response?.ok ? ((await response.json()) as Messages) : {};
}

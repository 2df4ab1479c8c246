import { openAccount as account } from './account.ts';
import type { DialogHost, OpenDialogHost } from './api.ts';
import DIALOG_ENGLISH from '../locales/dialogs/en.json' with { type: 'json' };
import { openSignIn as signIn } from './sign-in.ts';

/**
 * The dialogs' module, embed/account.<hash>.js (src/widget/bundle.ts): the widget imports it the
 * first time a reader opens "Sign in" or "Your account". It imports only types of the widget's
 * code, whose helpers come in the DialogHost; it holds the dialogs' English words, under the site's.
 */
const withWords = (host: DialogHost): OpenDialogHost => ({ ...host, t: host.kit.translator(host.lang, { ...DIALOG_ENGLISH, ...host.messages }) });

export const openSignIn = (host: DialogHost): void => signIn(withWords(host));
export const openAccount = (host: DialogHost): void => account(withWords(host));

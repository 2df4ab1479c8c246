import { escapeHtml } from '../formatting/escape.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { requestLocale } from '../i18n/request.ts';
import type { Site } from '../sites/repository.ts';
import { voiceOf, type Voice } from './words.ts';

/** A button a page offers: it posts the page's own address, with `field` (name, value) in the form when given. */
interface PageAction {
  button: string;
  /** Said above the button (the first action needs none: the page's message asks). */
  explain?: string;
  field?: [string, string];
}

function form({ button, explain, field }: PageAction): string {
  const hidden = field ? `<input type="hidden" name="${escapeHtml(field[0])}" value="${escapeHtml(field[1])}">` : '';
  return `${explain ? `<p>${escapeHtml(explain)}</p>` : ''}<form method="post">${hidden}<button type="submit">${escapeHtml(button)}</button></form>`;
}

/**
 * The small pages a mail's links open. A GET only asks (mail scanners open links on their own);
 * the buttons post to the same address, which does it. No script, no outside resource.
 */
export function page(voice: Pick<Voice, 'locale' | 'dir'>, title: string, message: string, actions: PageAction[] = []): string {
  return (
    `<!doctype html><html lang="${voice.locale}" dir="${voice.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>` +
    `<style>body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${actions.map(form).join('')}</main></body></html>`
  );
}

/** What the unsubscribe page's second button posts, on a link for every mail. */
export const FORGET_FIELD: [string, string] = ['forget', 'address'];
/** What the page of a link for every mail posts to lift the stop, once the address stopped all mail. */
export const RESUME_FIELD: [string, string] = ['resume', 'mail'];

const forgetAction = ({ say }: Voice): PageAction => ({ button: say('pageForgetButton'), explain: say('pageForgetAsk'), field: FORGET_FIELD });

export const confirmPage = (voice: Voice) => page(voice, voice.say('pageConfirmTitle'), voice.say('pageConfirmAsk'), [{ button: voice.say('pageConfirmButton') }]);
export const confirmedPage = (voice: Voice) => page(voice, voice.say('pageConfirmTitle'), voice.say('pageConfirmDone'));

const UNSUBSCRIBE_ASK = {
  comment: 'pageUnsubscribeAskComment',
  thread: 'pageUnsubscribeAskThread',
  mentions: 'pageUnsubscribeAskMentions',
  follow: 'notice.pageUnfollowAsk',
  notifications: 'digest.pageStopAsk',
  all: 'pageUnsubscribeAskAll',
} as const;

/** An unsubscribe link's page; one for every mail whose address stopped all mail offers to resume instead. */
export const unsubscribePage = (voice: Voice, scope: keyof typeof UNSUBSCRIBE_ASK, stopped: boolean) => {
  const { say } = voice;
  if (scope === 'all' && stopped) return page(voice, say('pageUnsubscribeTitle'), say('pageStopped'), [{ button: say('pageResumeButton'), field: RESUME_FIELD }, forgetAction(voice)]);
  return page(voice, say('pageUnsubscribeTitle'), say(UNSUBSCRIBE_ASK[scope]), [{ button: say('pageUnsubscribeButton') }, ...(scope === 'all' ? [forgetAction(voice)] : [])]);
};
const DONE = { stop: 'pageUnsubscribeDone', forget: 'pageForgetDone', resume: 'pageResumeDone' } as const;
export const unsubscribedPage = (voice: Voice, action: keyof typeof DONE) => page(voice, voice.say('pageUnsubscribeTitle'), voice.say(DONE[action]));
export const verifyPage = (voice: Voice) => page(voice, voice.say('pageVerifyTitle'), voice.say('pageVerifyAsk'), [{ button: voice.say('pageVerifyButton') }]);
export const verifiedPage = (voice: Voice) => page(voice, voice.say('pageVerifyTitle'), voice.say('pageVerifyDone'));
/** A sign-in link's page: a button that signs in and goes back to the page the reader came from, or, with none, what to do instead. */
export const signInPage = ({ say, ...voice }: Voice, site: string, returns: boolean) =>
  returns
    ? page(voice, say('pageSignInTitle'), say('pageSignInAsk', { site }), [{ button: say('pageSignInButton') }])
    : page(voice, say('pageSignInTitle'), say('pageSignInTypeCode', { site }));

/**
 * A page speaks the language of the record its link names (the address, the staff member) when it
 * has one, else the one the browser asks for, else the site's, else English; with the site's own words.
 */
export function pageVoice(request: { headers: IncomingHttpHeaders }, recorded: string | null | undefined, site?: Pick<Site, 'language' | 'strings'>): Voice {
  return voiceOf([recorded, requestLocale(request), site?.language], site?.strings);
}

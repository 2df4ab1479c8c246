import { escapeHtml } from '../formatting/escape.ts';
import { MAIL_STRINGS as S } from './strings.ts';

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
export function page(title: string, message: string, actions: PageAction[] = []): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>` +
    `<style>body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${actions.map(form).join('')}</main></body></html>`
  );
}

/** What the unsubscribe page's second button posts, on a link for every mail. */
export const FORGET_FIELD: [string, string] = ['forget', 'address'];
/** What the page of a link for every mail posts to lift the stop, once the address stopped all mail. */
export const RESUME_FIELD: [string, string] = ['resume', 'mail'];

const forgetAction: PageAction = { button: S.pageForgetButton, explain: S.pageForgetAsk, field: FORGET_FIELD };

export const confirmPage = () => page(S.pageConfirmTitle, S.confirmIntro('this site'), [{ button: S.pageConfirmButton }]);
export const confirmedPage = () => page(S.pageConfirmTitle, S.pageConfirmDone);
/** An unsubscribe link's page; one for every mail whose address stopped all mail offers to resume instead. */
export const unsubscribePage = (scope: keyof typeof S.pageUnsubscribeAsk, stopped: boolean) => {
  if (scope === 'all' && stopped) return page(S.pageUnsubscribeTitle, S.pageStopped, [{ button: S.pageResumeButton, field: RESUME_FIELD }, forgetAction]);
  return page(S.pageUnsubscribeTitle, S.pageUnsubscribeAsk[scope], [{ button: S.pageUnsubscribeButton }, ...(scope === 'all' ? [forgetAction] : [])]);
};
const DONE = { stop: S.pageUnsubscribeDone, forget: S.pageForgetDone, resume: S.pageResumeDone } as const;
export const unsubscribedPage = (action: keyof typeof DONE) => page(S.pageUnsubscribeTitle, DONE[action]);
export const verifyPage = () => page(S.pageVerifyTitle, S.pageVerifyAsk, [{ button: S.pageVerifyButton }]);
export const verifiedPage = () => page(S.pageVerifyTitle, S.verifyDone);
/** A sign-in link's page: a button that signs in and goes back to the page the reader came from, or, with none, what to do instead. */
export const signInPage = (site: string, returns: boolean) =>
  returns ? page(S.pageSignInTitle, S.pageSignInAsk(site), [{ button: S.pageSignInButton }]) : page(S.pageSignInTitle, S.pageSignInTypeCode(site));

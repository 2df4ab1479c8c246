import { escapeHtml } from '../widget/demo.ts';
import { MAIL_STRINGS as S } from './strings.ts';

/**
 * The small pages a mail's links open. A GET only asks (mail scanners open links on their own);
 * the button posts to the same address, which does it. No script, no outside resource.
 */
export function page(title: string, message: string, button?: string): string {
  const form = button ? `<form method="post"><button type="submit">${escapeHtml(button)}</button></form>` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>` +
    `<style>body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${form}</main></body></html>`
  );
}

export const confirmPage = () => page(S.pageConfirmTitle, S.confirmIntro('this site'), S.pageConfirmButton);
export const confirmedPage = () => page(S.pageConfirmTitle, S.pageConfirmDone);
export const unsubscribePage = (scope: keyof typeof S.pageUnsubscribeAsk) => page(S.pageUnsubscribeTitle, S.pageUnsubscribeAsk[scope], S.pageUnsubscribeButton);
export const unsubscribedPage = () => page(S.pageUnsubscribeTitle, S.pageUnsubscribeDone);

/**
 * Every word a mail or a mail page says, in one place, so a translation is one file. Functions
 * take what they name; the callers escape nothing themselves (html.ts escapes what goes into HTML).
 */
export const MAIL_STRINGS = {
  confirmSubject: (site: string) => `Confirm your address for replies on ${site}`,
  confirmIntro: (site: string) => `Someone (probably you) asked ${site} to email this address when their comment gets a reply.`,
  confirmAction: 'Confirm this address',
  confirmIgnore: 'If that was not you, ignore this mail: nothing will be sent without a click on the link above, which expires in 24 hours.',

  replySubject: (count: number, page: string) => (count === 1 ? `New reply on ${page}` : `${count} new replies on ${page}`),
  replyIntro: (count: number) => (count === 1 ? 'Someone replied to your comment:' : `${count} replies to your comments:`),
  replyBy: (name: string) => `${name} wrote:`,
  replyOpen: 'Read and answer on the page',

  mentionSubject: (count: number, page: string) => (count === 1 ? `You were mentioned on ${page}` : `You were mentioned in ${count} comments on ${page}`),
  mentionBy: (name: string) => `${name} mentioned you:`,
  mentionOpen: 'Read it on the page',
  mentionMore: (count: number) => `And ${count} more.`,
  mentionWhy: 'You get this mail because a comment on this site mentions you. Your account on the site can turn these mails off, or the link below.',

  moderationSubject: (site: string, pending: number, flagged: number) => {
    const waiting = pending === 1 ? 'A comment waits for moderation' : `${pending} comments wait for moderation`;
    if (flagged === 0) return `[${site}] ${waiting}`;
    if (pending === 0) return `[${site}] ${flagged === 1 ? 'A comment was flagged' : `${flagged} comments were flagged`}`;
    return `[${site}] ${waiting}, ${flagged} flagged`;
  },
  moderationPendingHeading: (count: number) => (count === 1 ? 'Waiting for approval:' : `Waiting for approval (${count}):`),
  moderationFlaggedHeading: (count: number) => (count === 1 ? 'Flagged:' : `Flagged (${count}):`),
  moderationPendingBy: (name: string) => `${name} wrote:`,
  moderationFlaggedBy: (name: string, reasons: string[]) => `${name} wrote${reasons.length > 0 ? ` (flagged: ${reasons.join(', ')})` : ''}:`,
  moderationOpen: 'Open it in the dashboard',
  moderationMore: (count: number) => `And ${count} more.`,
  moderationQueue: 'Open the moderation queue',
  moderationSettings: 'You get these mails because of your notification setting in the dashboard (off, pending only, all), at most one every ten minutes for a site.',

  resetSubject: 'Reset your Parley password',
  resetIntro: 'A password reset link was issued for your Parley sign-in. It works once, for 24 hours:',
  resetIgnore: 'If you did not expect it, tell the owner of your account.',

  verifySubject: 'Confirm your address for Parley',
  verifyIntro: 'This address was given for a Parley sign-in. Until it is confirmed, no mail goes to it, and anyone who confirms it later takes it over. The link works once, for 7 days:',
  verifyAction: 'Confirm this address',
  verifyIgnore: 'If that was not you, ignore this mail: the address stays unconfirmed.',

  signInSubject: (site: string) => `Your sign-in code for ${site}`,
  signInIntro: (site: string) => `Someone (probably you) asked to sign in to the comments on ${site} with this address. Your code:`,
  signInAction: 'Or sign in with this link',
  signInExpiry: (minutes: number) => `The code and the link work once, for ${minutes} minutes: either one signs you in.`,
  signInIgnore: 'If you did not ask for this, ignore this mail: nobody signs in without the code or the link.',

  unsubscribeComment: 'Stop replies to this comment',
  unsubscribeThread: 'Stop replies from this page',
  unsubscribeMentions: 'Stop mails when someone mentions me',
  unsubscribeAll: 'Stop all mail from this site',

  pageConfirmTitle: 'Confirm your address',
  pageConfirmButton: 'Confirm',
  pageConfirmDone: 'Thank you: your address is confirmed. You will get a mail when someone replies.',
  pageVerifyTitle: 'Confirm your address',
  pageVerifyAsk: 'Confirm that this address is yours, for your Parley sign-in?',
  pageVerifyButton: 'Confirm',
  verifyDone: 'Thank you: your address is confirmed.',
  pageSignInTitle: 'Sign in',
  pageSignInAsk: (site: string) => `Sign in to the comments on ${site}? You will be taken back to the page you came from.`,
  pageSignInButton: 'Sign in',
  pageSignInTypeCode: (site: string) =>
    `This link has no page to take you back to, signed in. To sign in to the comments on ${site}, type the code from the same mail into the page where you asked for it.`,
  pageUnsubscribeTitle: 'Unsubscribe',
  pageUnsubscribeAsk: {
    comment: 'Stop mails about replies to this comment?',
    thread: 'Stop mails about replies on this page?',
    mentions: 'Stop mails when someone mentions you on this site? Your account on the site can turn them on again.',
    all: 'Stop all mail from this site to this address?',
  },
  pageUnsubscribeButton: 'Unsubscribe',
  pageUnsubscribeDone: 'Done: you will get no more of these mails.',
  pageForgetAsk: 'Or have this site forget your address: it is deleted with every request for replies it made. To get mails again, you would give and confirm it anew.',
  pageForgetButton: 'Forget my address',
  pageForgetDone: 'Done: this site no longer has your address.',
  pageStopped: 'All mail from this site to this address is stopped: nothing is sent to it, whoever gives it in a comment. Resume mail? Replies to the comments whose mails you confirmed are sent again.',
  pageResumeButton: 'Resume mail',
  pageResumeDone: 'Done: mail from this site is on again, for the comments whose mails you confirmed.',
} as const;

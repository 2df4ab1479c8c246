/**
 * The sign-in and account dialogs' words, in English. They travel in the dialogs' module, not in
 * embed.js; a site's own (`setStrings`, kept with the widget's) are laid over them when a dialog opens.
 */
export const DIALOG_ENGLISH = {
  signInTitle: 'Sign in to comment',
  continueWith: 'Continue with {provider}',
  or: 'or',
  yourEmail: 'Your email address',
  emailCode: 'Email me a sign-in code',
  codeSent: 'We sent a 6-digit code to {email}. It works for {minutes} minutes; the link in the email signs you in too.',
  code: 'Code from the email',
  firstName: 'Your name (if this is your first sign-in)',
  verify: 'Sign in',
  otherAddress: 'Use another address',
  signInFailed: 'Signing in did not work: {detail}',
  error_code_refused: 'That code is not right, or it has expired. Check the email, or ask for a new code.',
  close: 'Close',
  yourName: 'Your name',
  nameSaved: 'Saved.',
  waysIn: 'How you sign in',
  wayEmail: 'Email code to {email}',
  wayProviderEmail: '{provider} ({email})',
  lastUsed: 'last used {date}',
  remove: 'Remove',
  removeWay: 'Remove {way}',
  mailDefault: 'Email me replies to my comments',
  mentionMail: 'Email me when someone mentions me',
  claimOne: 'Claim 1 earlier comment',
  claimMany: 'Claim {count} earlier comments',
  claimHint: 'Comments you posted as a guest with your confirmed address can be yours.',
  claimed: '{count} comments are now yours.',
  yourComments: 'Your comments',
  noComments: 'You have not commented on this site yet.',
  more: 'More',
  yourData: 'Your data',
  download: 'Download my data',
  downloadHint: 'Everything of yours on this site, as a JSON file: comments, votes, reactions, addresses and subscriptions.',
  deleteAccount: 'Delete my account',
  deleteWarning:
    'Your name, your email addresses, the ways you sign in and your mail subscriptions are erased. Your comments stay, shown under "Deleted user": delete the ones you want gone first.',
  deleteGrace: 'Your account is deleted {when}; signing in again before then keeps it.',
  deleteAtOnce: 'Your account is deleted at once; this cannot be undone.',
  yesDeleteAccount: 'Yes, delete my account',
  deletionPending: 'Your account will be deleted on {date}; sign in before then to keep it.',
  deletedNow: 'Your account was deleted.',
};

export type DialogStrings = typeof DIALOG_ENGLISH;

/**
 * The spam and ham corpora of spam.corpus.test.ts: what sites that allow guests receive, written
 * the ways bots and people write it. Each item is posted as its `by` says: a guest from `ip`
 * (through a trusted proxy), with the form token the widget would send unless `form` says otherwise,
 * or a signed-in user.
 */
export interface CorpusItem {
  kind: string;
  content: string;
  by: { guest: string } | { user: string };
  /** How the guest's form is sent: aged as a person's (default), none, fresh (a bot's speed), or with the hidden field filled. */
  form?: 'aged' | 'none' | 'fresh' | 'honeypot';
  author_name?: string;
}

const farm = (n: number) => Array.from({ length: n }, (_, i) => `https://cheap-deals-${i}.example/offer`).join(' ');
const guest = (ip: string) => ({ guest: ip });

/** Words the corpus site bans and suspects (its settings in the test). */
export const BANNED = ['viagra', 'casino'];
export const SUSPECT = ['crypto', 'forex'];

export const SPAM: CorpusItem[] = [
  { kind: 'link farm', content: `Best prices here ${farm(6)}`, by: guest('203.0.113.10') },
  { kind: 'link farm', content: `Visit www.pills-shop.example and cheap-pills.ru and pills.example/buy and more.pills.example now`, by: guest('203.0.113.11') },
  { kind: 'link farm from a new account', content: `Great article! Check my site https://seo-boost.example/ranking`, by: { user: 'new-linker' } },
  { kind: 'single link from a guest', content: 'I found this helpful: http://bit.example/x1', by: guest('198.51.100.7') },
  { kind: 'bare domain link', content: 'more like this at replica-watches.com', by: guest('198.51.100.8') },
  { kind: 'rotating IPs, same text', content: 'Earn $500 a day working from home, message me on the contact form today', by: guest('192.0.2.21') },
  { kind: 'rotating IPs, same text', content: 'Earn $500 a day working from home, message me on the contact form today', by: guest('192.0.2.77') },
  { kind: 'rotating IPs, same text', content: 'Earn $500 a day working from home, message me on the contact form today', by: guest('192.0.2.133') },
  { kind: 'rotating IPs, same text', content: 'Earn $500 a day working from home, message me on the contact form today', by: guest('100.64.9.9') },
  { kind: 'rotating IPs, case and spaces changed', content: 'EARN $500 a day   working from home, message me on the contact form TODAY', by: guest('100.64.10.10') },
  { kind: 'rotating IPs, zero-width copy', content: 'Earn $500 a day work\u200Bing from home, message me on the con\u200Dtact form today', by: guest('100.64.11.11') },
  { kind: 'same guest, same text again', content: 'Follow my channel for daily giveaways and prizes!!!', by: guest('198.51.100.50') },
  { kind: 'same user, same text again', content: 'Subscribe to my newsletter for exclusive deals', by: { user: 'repeater' } },
  { kind: 'zero-width banned word', content: 'Try the new c\u200Basino bonus', by: guest('198.51.100.60') },
  { kind: 'full-width banned word', content: 'ｖｉａｇｒａ without prescription', by: guest('198.51.100.61') },
  { kind: 'styled letters banned word', content: 'Best 𝐜𝐚𝐬𝐢𝐧𝐨 online', by: guest('198.51.100.62') },
  { kind: 'l33t banned word', content: 'cheap v1agr4 here', by: guest('198.51.100.63') },
  { kind: 'symbols in a banned word', content: 'vi@gra deals', by: guest('198.51.100.64') },
  { kind: 'spaced-out banned word', content: 'V I A G R A for sale', by: guest('198.51.100.65') },
  { kind: 'dotted banned word', content: 'the best c.a.s.i.n.o games', by: guest('198.51.100.66') },
  { kind: 'repeated letters in a banned word', content: 'caaasiiino nights', by: guest('198.51.100.67') },
  { kind: 'suspect word', content: 'Double your crypto in a week, ask me how', by: guest('198.51.100.68') },
  { kind: 'suspect word, disguised', content: 'f0rex signals that never lose', by: { user: 'signals' } },
  { kind: 'fast bot without the form token', content: 'Nice post, I agree with everything written here.', by: guest('203.0.113.80'), form: 'none' },
  { kind: 'fast bot with a fresh token', content: 'Very informative, thank you for sharing this post.', by: guest('203.0.113.81'), form: 'fresh' },
  { kind: 'bot filling the hidden field', content: 'I really like the way you explained this topic.', by: guest('203.0.113.82'), form: 'honeypot' },
];

/**
 * Posted before the corpus and not counted: a text's first copy says nothing yet, and is
 * published; the same author's next copy (in SPAM) is the spam.
 */
export const SEEN_BEFORE: CorpusItem[] = [
  { kind: 'first copy', content: 'Follow my channel for daily giveaways and prizes!!!', by: guest('198.51.100.50') },
  { kind: 'first copy', content: 'Subscribe to my newsletter for exclusive deals', by: { user: 'repeater' } },
];

export const HAM: CorpusItem[] = [
  { kind: 'guest, ordinary', content: 'I tried this recipe last weekend and it worked really well.', by: guest('203.0.113.100'), author_name: 'Jo' },
  { kind: 'guest, question', content: 'Does anyone know whether this also works on older versions?', by: guest('198.51.100.101') },
  { kind: 'guest, short thanks', content: 'Thanks!', by: guest('198.51.100.102') },
  { kind: 'another guest, short thanks', content: 'Thanks!', by: guest('203.0.113.103') },
  { kind: 'a third guest, short thanks', content: 'Thanks!', by: guest('192.0.2.104') },
  { kind: 'user, short reply twice', content: 'Agreed.', by: { user: 'alice' } },
  { kind: 'user, short reply twice', content: 'Agreed.', by: { user: 'alice' } },
  { kind: 'user, long comment', content: 'The second half of the article is where it gets interesting: the trade-offs between the two designs are real, and I would have liked more numbers.', by: { user: 'bob' } },
  { kind: 'words that hold a listed one', content: 'A classic Casablanca screening at the cinema, then an occasional walk by the sea.', by: guest('198.51.100.105') },
  { kind: 'non-Latin text', content: 'Спасибо за статью, очень полезно! 谢谢分享。', by: guest('203.0.113.106') },
  { kind: 'emoji', content: 'This made my day 🎉🙂', by: guest('192.0.2.107') },
  { kind: 'full-width digits and punctuation', content: 'I paid ５０ euros for it！Worth it.', by: { user: 'carol' } },
  { kind: 'a number and a unit', content: 'It took 3.5 hours on a 2.4 GHz laptop, about what I expected.', by: guest('198.51.100.108') },
  { kind: 'user with approved comments, a link', content: 'The official docs cover this: https://docs.example.org/guide', by: { user: 'regular' } },
  { kind: 'code snippet', content: 'You can write it as `const x = a ?? b;` which reads better.', by: { user: 'dana' } },
  { kind: 'quote with an ellipsis', content: '"Simplicity is prerequisite for reliability"... so true.', by: guest('203.0.113.109') },
];

/** Ten people commenting within a minute on one thread: an ordinary busy thread, never held. */
export const BUSY_THREAD: CorpusItem[] = Array.from({ length: 10 }, (_, i) => ({
  kind: 'busy thread',
  content: `Comment number ${i + 1} on the live match: what a goal that was!`,
  by: i % 2 === 0 ? guest(`198.18.${i}.${10 + i}`) : { user: `fan-${i}` },
}));

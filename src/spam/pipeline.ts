import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { authorRecord, NO_RECORD, type AuthorRecord } from '../moderation/bans.ts';
import { refreshListing } from '../comments/listing.ts';
import type { Database } from '../db/schema.ts';
import { recordCommentChange, seenByPublic } from '../live/record.ts';
import { AppError, invalid } from '../errors.ts';
import type { Site } from '../sites/repository.ts';
import { checkFormToken } from './form-token.ts';
import { acceptProof } from './proof.ts';
import type { SpamSettings } from './settings.ts';
import type { Signal, SignalLog } from './signal-log.ts';
import { authorKeyOf, ipRangeOf, publicCopies, readCopies, readStanding, type Standing } from './signals.ts';
import { addedLinkCount, linkCount, normalisedText, textHash } from './text.ts';
import { listedWordIn } from './words.ts';
import type { ModelCache } from './classifier/cache.ts';
import type { Totals } from './classifier/model.ts';
import { classifierReason } from './classifier/phase.ts';

export const SPAM_CHECKS = ['form', 'duplicate', 'words', 'links', 'velocity', 'history', 'classifier'] as const;

/**
 * Why a comment was held: which check, and what it saw. Stored on the comment (spam_reasons).
 * `code` and `values` say it for the dashboard to word in each language (`detail` is the English);
 * reasons stored before codes existed have neither.
 */
export interface SpamReason {
  check: (typeof SPAM_CHECKS)[number];
  detail: string;
  code?: string;
  values?: Record<string, unknown>;
}

/** What a guest's widget sends beside the comment (CreateBody's form_token, website and altcha). */
export interface FormFields {
  form_token?: string;
  website?: string;
  altcha?: string;
}

export type Verdict =
  | { action: 'allow' }
  | { action: 'hold'; reasons: SpamReason[] }
  | { action: 'reject'; problem: AppError };

export interface Screening {
  verdict: Verdict;
  /** Comments published before this one with its text, held with it (three or more authors): their threads changed. */
  heldCopies: Array<{ siteId: string; threadUrl: string }>;
  /** The comment's signal, in the log already: the caller takes it back if the write fails, and has it written once committed. */
  signal: Signal | null;
}

export interface NewComment {
  id: string;
  site: Site;
  caller: Caller;
  moderator: boolean;
  authorRef: string | null;
  /** The author's comments on the site by state (none for a guest). */
  record: AuthorRecord;
  content: string;
  /** The thread's key (its URL as threads.url_key holds it). */
  threadUrl: string;
  form: FormFields;
  createdAt: string;
  /** The sites' learning classifiers (db.classifierModels). */
  models: ModelCache;
  /** The site's classifier totals, read with the author's standing (comments/standing.ts). */
  classifierTotals: Totals;
}

const ALLOW: Verdict = { action: 'allow' };
const UNSCREENED: Screening = { verdict: ALLOW, heldCopies: [], signal: null };

/**
 * Texts shorter than this are never copies: "Thanks!", "+1" or "Great post" are said again and by
 * many, and carry no payload a spammer would repeat.
 */
export const DUPLICATE_MIN_LENGTH = 20;

/** Whom the checks apply to: everyone but the site's moderators, while the site has them on. */
const screened = (site: Site, moderator: boolean) => site.spam.enabled && !moderator;

/**
 * Step 1, guests only: the widget's hidden field is empty and its form token, signed for this site,
 * was issued at least `min_submit_seconds` before. API keys and sessions never carry one: a site's
 * backend posting for its users is not the widget, and a session is minted by the site for a person.
 */
function formReasons(settings: SpamSettings, site: Site, form: FormFields, now: number): SpamReason[] {
  if (!settings.form_check) return [];
  if (form.website) return [{ check: 'form', code: 'form_hidden_field', values: {}, detail: "the form's hidden field, left empty by people, was filled in" }];
  const token = checkFormToken(site.formSecret, site.id, form.form_token, now);
  if (!token.ok) {
    return [{ check: 'form', code: 'form_token', values: { problem: token.problem }, detail: `${token.problem} form token (the widget sends one with each guest comment)` }];
  }
  const minimumMs = settings.min_submit_seconds * 1000;
  if (token.ageMs < minimumMs) {
    const seconds = Math.floor(token.ageMs / 100) / 10;
    const minimum = settings.min_submit_seconds;
    return [{ check: 'form', code: 'form_too_fast', values: { seconds, minimum }, detail: `sent ${seconds.toFixed(1)} s after the form was given (minimum ${minimum} s)` }];
  }
  return [];
}

/**
 * Steps 4 and 5, on the normalised text: a banned word rejects, a suspect word or the links hold.
 * An edit (`before`: the normalised text it replaces) waits for an approved author only when it
 * brings links the comment did not hold: those it kept may have been approved by a moderator.
 */
function textReasons(settings: SpamSettings, normalised: string, approvedComments: () => number, before?: string): SpamReason[] | AppError {
  const banned = listedWordIn(settings.banned_words, normalised);
  if (banned !== null) return invalid('body/content', `holds a word this site does not accept ("${banned}"); please reword your comment`);
  const reasons: SpamReason[] = [];
  const suspect = listedWordIn(settings.suspect_words, normalised);
  if (suspect !== null) reasons.push({ check: 'words', code: 'suspect_word', values: { word: suspect }, detail: `holds "${suspect}", on the site's list of suspect words` });
  const links = linkCount(normalised);
  const maximum = settings.max_links;
  const minimum = settings.links_min_approved;
  if (links > maximum) reasons.push({ check: 'links', code: 'too_many_links', values: { links, maximum }, detail: `${links} links (more than ${maximum})` });
  else if (links > 0 && (before === undefined || addedLinkCount(before, normalised) > 0) && approvedComments() < minimum) {
    reasons.push({ check: 'links', code: 'link_new_author', values: { minimum }, detail: `a link from an author with fewer than ${minimum} approved comments` });
  }
  return reasons;
}

function velocityReasons(settings: SpamSettings, standing: Standing, guest: boolean): SpamReason[] {
  const reasons: SpamReason[] = [];
  const over = (code: string, limit: number, detail: string) => reasons.push({ check: 'velocity', code, values: { limit }, detail });
  if (guest && standing.ipRangeFull) {
    over('velocity_ip_range', settings.ip_range_per_10_minutes, `more than ${settings.ip_range_per_10_minutes} guest comments from this IP range in 10 minutes`);
  }
  if (standing.threadFull) over('velocity_thread', settings.thread_per_minute, `more than ${settings.thread_per_minute} comments in this thread in a minute`);
  if (standing.siteFull) over('velocity_site', settings.site_per_minute, `more than ${settings.site_per_minute} comments on the site in a minute`);
  return reasons;
}

/**
 * The ordered checks of a new comment, in the transaction that writes it. Guests get every check;
 * signed-in users all but the guest-only ones (form token, IP range, proof of work); API keys, which
 * post for people the site vouches for, the text checks and thread and site velocity, never the
 * author-based ones (the key is not the person). Moderators get none. A comment that is not refused
 * leaves a signal (its text hash, author, range, thread) in the log, for the checks of the comments
 * after it.
 */
export async function screenComment(trx: Transaction<Database>, log: SignalLog, input: NewComment): Promise<Screening> {
  const { site, caller } = input;
  if (!screened(site, input.moderator)) return UNSCREENED;
  const settings = site.spam;
  const now = Date.parse(input.createdAt);
  const guest = caller.kind === 'public';
  const person = caller.kind !== 'key';
  const normalised = normalisedText(input.content);
  const signal: Signal = {
    commentId: input.id,
    siteId: site.id,
    threadKey: input.threadUrl,
    authorKey: authorKeyOf(input.authorRef, caller.ip),
    ipRange: guest ? ipRangeOf(caller.ip) : null,
    textHash: textHash(normalised),
    at: now,
  };
  const copiesCount = person && settings.duplicates && normalised.trim().length >= DUPLICATE_MIN_LENGTH;
  const standing = readStanding(log, signal, {
    copies: copiesCount,
    ipRange: settings.ip_range_per_10_minutes,
    thread: settings.thread_per_minute,
    site: settings.site_per_minute,
  });
  const reasons = guest ? formReasons(settings, site, input.form, now) : [];
  let copiesToHold = false;
  if (copiesCount && standing.copied) {
    const copies = readCopies(log, signal, settings.duplicate_authors);
    if (copies.sameAuthor) {
      reasons.push({ check: 'duplicate', code: 'duplicate_same_author', values: {}, detail: `the same text as a comment of the same ${guest ? 'address' : 'author'} within 24 hours` });
    }
    if (settings.duplicate_authors > 0 && copies.authors >= settings.duplicate_authors) {
      const { authors } = copies;
      reasons.push({ check: 'duplicate', code: 'duplicate_authors', values: { authors }, detail: `the same text from ${authors} or more authors on the site within an hour` });
      copiesToHold = true;
    }
  }
  const { record } = input;
  const text = textReasons(settings, normalised, () => (person ? record.published : Number.POSITIVE_INFINITY));
  if (text instanceof AppError) return { verdict: { action: 'reject', problem: text }, heldCopies: [], signal: null };
  reasons.push(...text);
  const velocity = velocityReasons(settings, standing, guest);
  reasons.push(...velocity);
  if (person && !guest) reasons.push(...historyReason(settings.history_min_comments, record));
  const learnt = await classifierReason(trx, input.models, site, input.content, input.classifierTotals);
  if (learnt) reasons.push(learnt);
  const proofNeeded = guest && (settings.proof_of_work === 'always' || (settings.proof_of_work === 'velocity' && velocity.length > 0));
  if (proofNeeded && !(await acceptProof(trx, site.id, site.formSecret, input.form.altcha))) {
    const problem = invalid('body/altcha', 'needs a proof of work (ALTCHA) solving a challenge from GET /v1/widget, unused and under an hour old');
    return { verdict: { action: 'reject', problem }, heldCopies: [], signal: null };
  }
  log.add(signal);
  const heldCopies = copiesToHold ? await holdCopies(trx, log, signal, reasons) : [];
  return { verdict: reasons.length === 0 ? ALLOW : { action: 'hold', reasons }, heldCopies, signal };
}

/**
 * The third author's copy holds the copies of the last hour the public sees too (a text posted by
 * several authors at once is a campaign, the first copies included): they go back to pending with
 * the same reasons, and leave lists and live streams as a moderator's hold would make them.
 */
async function holdCopies(trx: Transaction<Database>, log: SignalLog, signal: Signal, reasons: SpamReason[]) {
  const { siteId } = signal;
  const copies = await publicCopies(trx, log, signal);
  if (copies.length === 0) return [];
  const seenBefore = new Map<string, boolean>();
  for (const copy of copies) seenBefore.set(copy.id, await seenByPublic(trx, copy));
  const held = await trx
    .updateTable('comments')
    .set({ status: 'pending', moderation_status: 'pending', spam_reasons: JSON.stringify(reasons) })
    .where('id', 'in', copies.map((copy) => copy.id))
    .returningAll()
    .execute();
  await refreshListing(trx, new Set(held.map((row) => row.root_id)));
  for (const row of held) await recordCommentChange(trx, seenBefore.get(row.id)!, row);
  return [...new Set(copies.map((copy) => copy.thread_url))].map((threadUrl) => ({ siteId, threadUrl }));
}

/** Step 7: an author with at least `minimum` comments on the site, more than half of them removed or spam. */
function historyReason(minimum: number, record: AuthorRecord): SpamReason[] {
  const removedOrSpam = record.removed + record.spam;
  const total = removedOrSpam + record.published + record.pending;
  if (minimum === 0 || total < minimum || removedOrSpam * 2 <= total) return [];
  return [{ check: 'history', code: 'history', values: { bad: removedOrSpam, total }, detail: `${removedOrSpam} of the author's ${total} comments on the site were removed or marked spam` }];
}

export interface EditedComment {
  site: Site;
  caller: Caller;
  moderator: boolean;
  authorRef: string | null;
  content: string;
  /** The comment as it is before the edit. */
  before: { content: string | null; status: string };
}

/**
 * An edit's checks: the text ones (words, links) and the author's history; a comment's form, pace
 * and copies were judged when it was posted. The links step counts the author's other approved
 * comments: the edited one, published, would otherwise vouch for the links edited into it.
 */
export async function screenEdit(trx: Transaction<Database>, input: EditedComment): Promise<Verdict> {
  const { site, caller } = input;
  if (!screened(site, input.moderator)) return ALLOW;
  const person = caller.kind !== 'key';
  const record = person && input.authorRef !== null ? await authorRecord(trx, site.id, input.authorRef) : NO_RECORD;
  const { before } = input;
  const otherApproved = () => (person ? record.published - (before.status === 'published' ? 1 : 0) : Number.POSITIVE_INFINITY);
  const text = textReasons(site.spam, normalisedText(input.content), otherApproved, normalisedText(before.content ?? ''));
  if (text instanceof AppError) return { action: 'reject', problem: text };
  text.push(...historyReason(site.spam.history_min_comments, record));
  return text.length === 0 ? ALLOW : { action: 'hold', reasons: text };
}

import { Type } from 'typebox';
import { invalid } from '../errors.ts';

export const MAX_CONTACT = 500;

export const ContactSetting = Type.Union([Type.String({ maxLength: MAX_CONTACT }), Type.Null()], {
  description:
    'Where readers contest a moderation decision or ask about one, shown with every decision in the widget: an https URL, or an email address ' +
    '(given bare or as mailto:, kept as mailto:). null: none',
});

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/**
 * A contact as the widget links to it: an https page, or a mailto: link (a bare address becomes one).
 * Anything else (http, javascript:, a phrase) is refused: the widget puts it in an href.
 */
export function cleanContact(raw: string | null): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  const address = value.toLowerCase().startsWith('mailto:') ? value.slice('mailto:'.length) : value;
  if (EMAIL.test(address)) return withinLimit(`mailto:${address}`);
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // not a URL: refused below
  }
  if (url?.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    throw invalid('body/contact', 'must be an https URL or an email address');
  }
  return withinLimit(url.href);
}

/** The limit holds for the link as kept (`mailto:` added, the URL normalised), not only as typed. */
function withinLimit(contact: string): string {
  if (contact.length > MAX_CONTACT) throw invalid('body/contact', `must be at most ${MAX_CONTACT} characters as a link (got ${contact.length})`);
  return contact;
}

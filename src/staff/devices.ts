import { sign, unsign } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBase62 } from '../ids.ts';
import type { StaffRow } from './repository.ts';

/**
 * Device cookies (OWASP's "device cookies" against lock-outs): a browser that has signed in as a
 * person gets a cookie naming that person and a device id, signed with a key only that person's
 * row holds (their password hash, so a new password forgets every device). Its sign-ins are then
 * limited per device, not held by the guesses others make at the account. httpOnly, sent only to
 * /api/auth/, kept 180 days.
 */
export const DEVICE_COOKIE = 'parley_device';
const DEVICE_COOKIE_PATH = '/api/auth/';
const DEVICE_LIFETIME_SECONDS = 180 * 24 * 3600;

/** The cookie's value as the request sent it, unread. */
export function deviceCookieOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  return header === undefined ? null : (request.server.parseCookie(header)[DEVICE_COOKIE] ?? null);
}

/** The device id the cookie proves for this person, or null (no cookie, another person's, forged, or from before a password change). */
export function knownDeviceOf(cookie: string | null, staff: StaffRow | undefined): string | null {
  if (cookie === null || staff === undefined) return null;
  const { valid, value } = unsign(cookie, staff.password_hash);
  if (!valid || value === null) return null;
  const [staffId, deviceId] = value.split('.');
  return staffId === staff.id && deviceId ? deviceId : null;
}

/** After a successful sign-in: this browser is a known device of the person (the same id when it already was). */
export function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, staff: StaffRow, deviceId: string | null): void {
  const value = sign(`${staff.id}.${deviceId ?? randomBase62(22)}`, staff.password_hash);
  reply.header(
    'set-cookie',
    request.server.serializeCookie(DEVICE_COOKIE, value, {
      path: DEVICE_COOKIE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      maxAge: DEVICE_LIFETIME_SECONDS,
    }),
  );
}

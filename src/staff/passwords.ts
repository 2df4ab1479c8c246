import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt with N = 2^15, r = 8, p = 3: OWASP's equivalent of its N = 2^17 minimum at a quarter of the
 * memory (32 MiB per hash, about 0.35 s of one core). A 16-byte random salt per password, a 32-byte
 * key. The parameters are stored with each hash (`scrypt$N$r$p$salt$key`, base64), so raising them
 * later leaves every stored hash checkable.
 */
export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 3, keyLength: 32, saltLength: 16 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

interface Parameters {
  N: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, keyLength: number, { N, r, p }: Parameters): Promise<Buffer> {
  // Node refuses more than 32 MiB by default; scrypt needs 128 * N * r bytes and a little more.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => {
    // The same characters typed on another system may arrive composed differently.
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMETERS;
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, keyLength, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const STORED = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether the password matches the stored hash, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [, N, r, p, salt, expected] = match;
  const want = Buffer.from(expected, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), want.length, { N: Number(N), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, want);
}

/**
 * The hash of a random password nobody knows, with the current parameters: signing in with an
 * unknown email is checked against it, so that answer takes as long as a wrong password does.
 */
export const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$3$uzGrXkswk9qSpALCaQd+kg==$dvVw7w6dssvnM4Wp2T1SEkxVyicsCCGDp9kQDd7G4jg=';

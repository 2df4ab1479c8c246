import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, hashPassword, SCRYPT_PARAMETERS, verifyPassword } from './passwords.ts';

describe('password hashes', () => {
  it('are scrypt with the stated parameters and a random salt each, stored beside the key', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse battery staple'), hashPassword('correct horse battery staple')]);
    const [, n, r, p, salt, key] = first.split('$');
    expect([Number(n), Number(r), Number(p)]).toEqual([SCRYPT_PARAMETERS.N, SCRYPT_PARAMETERS.r, SCRYPT_PARAMETERS.p]);
    expect(Buffer.from(salt, 'base64')).toHaveLength(SCRYPT_PARAMETERS.saltLength);
    expect(Buffer.from(key, 'base64')).toHaveLength(SCRYPT_PARAMETERS.keyLength);
    expect(second).not.toBe(first);
  });

  it('check the password, composed either way, and refuse others and malformed hashes', async () => {
    const stored = await hashPassword('café au lait, please');
    expect(await verifyPassword('café au lait, please', stored)).toBe(true);
    expect(await verifyPassword('cafe\u0301 au lait, please', stored)).toBe(true);
    expect(await verifyPassword('café au lait, please!', stored)).toBe(false);
    expect(await verifyPassword('anything', 'plain text')).toBe(false);
  });

  it('keep working for hashes made with other parameters', async () => {
    // A hash from before a raise of the parameters (N = 2^14, p = 1) still verifies.
    const salt = Buffer.from('saltsaltsaltsalt');
    const older = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('old password!', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
    expect(await verifyPassword('old password!', older)).toBe(true);
  });

  it('a dummy hash with the current parameters stands in for unknown addresses', () => {
    const { N, r, p } = SCRYPT_PARAMETERS;
    expect(DUMMY_PASSWORD_HASH.startsWith(`scrypt$${N}$${r}$${p}$`)).toBe(true);
  });
});

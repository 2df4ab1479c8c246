import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Why a webhook target cannot be reached; the code is what the delivery log shows. */
export class TargetError extends Error {
  constructor(
    readonly code: 'blocked_address' | 'dns_failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Only global unicast addresses are public. ipaddr.js names every other range (loopback, private,
 * link-local, multicast, unique-local, carrier-grade NAT, 6to4 and the other tunnels that can embed
 * a private IPv4 address...), so this is an allow-list, not a list of what to refuse.
 */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unicast';
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a webhook host to the address to connect to. Every address the name resolves to must be
 * public (unless private targets are allowed), so an attacker's DNS cannot slip a private one in
 * beside a public one; the caller then connects to exactly this address.
 */
export async function resolveTarget(hostname: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new TargetError('dns_failed', `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
  if (addresses.length === 0) throw new TargetError('dns_failed', `${host} does not resolve`);
  const blocked = addresses.find((a) => !isPublicAddress(a.address));
  if (blocked && !allowPrivate) {
    throw new TargetError('blocked_address', `${host} is or resolves to ${blocked.address}, a loopback, private, link-local or multicast address`);
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

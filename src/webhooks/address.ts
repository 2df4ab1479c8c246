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
 * IPv4-compatible IPv6 addresses (`::a.b.c.d`, deprecated by RFC 4291) embed an IPv4 address, yet
 * ipaddr.js names no range for them, so they would pass as unicast.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * Only global unicast addresses are public. ipaddr.js names every other range (loopback, private,
 * link-local, multicast, unique-local, carrier-grade NAT...), so this is an allow-list, not a list
 * of what to refuse. Of the IPv6 forms that embed an IPv4 address, an IPv4-mapped one is judged by
 * the address it embeds (ipaddr.process unwraps it); the others ipaddr.js knows (IPv4-translated,
 * NAT64 in both prefixes, 6to4, Teredo) are named ranges, refused whatever they embed, as is the
 * IPv4-compatible form.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return !(parsed instanceof ipaddr.IPv6 && parsed.match(IPV4_COMPATIBLE));
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

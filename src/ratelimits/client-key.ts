import ipaddr from 'ipaddr.js';

/** Keys kept before the cache starts over: enough for the IPv6 clients of a busy window. */
const CACHE_SIZE = 10_000;
const keysOfIpv6 = new Map<string, string>();

/**
 * Who a client is for its limits and its guest flags, from its IP address. An IPv6 client counts as
 * its /64: one subscriber gets at least a /64, so a key per address would give each of them 2^64
 * quotas. An IPv4 client, or an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), counts as its address.
 */
export function clientKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  let key = keysOfIpv6.get(ip);
  if (key === undefined) {
    // Parsing takes microseconds, a lookup tens of nanoseconds; a client sends many requests.
    key = ipv6Key(ip);
    if (keysOfIpv6.size >= CACHE_SIZE) keysOfIpv6.clear();
    keysOfIpv6.set(ip, key);
  }
  return key;
}

function ipv6Key(ip: string): string {
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(ip);
  } catch {
    // Not an address (a socket always has one; a test may not): the string is the client.
    return ip;
  }
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const [a, b, c, d] = address.parts;
  return `${a.toString(16)}:${b.toString(16)}:${c.toString(16)}:${d.toString(16)}::/64`;
}

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIPv4, isIPv6, type LookupFunction } from 'node:net';

// Everything that is not the public internet (IANA special-purpose registries, v4 and v6).
const v4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const)
  v4.addSubnet(net, prefix, 'ipv4');

const v6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: reaches an IPv4 address through a translator
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo included)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  v6.addSubnet(net, prefix, 'ipv6');

const MAPPED = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The IPv4 address an IPv4-mapped (or -translated) IPv6 address carries, in dotted form. */
function embeddedV4(address: string): string | undefined {
  const dotted = MAPPED.exec(address);
  if (dotted) return dotted[1];
  const hex = MAPPED_HEX.exec(address);
  if (!hex) return undefined;
  const hi = Number.parseInt(hex[1] as string, 16);
  const lo = Number.parseInt(hex[2] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Whether a webhook may be delivered to this IP address: a unicast address on the public
 * internet. Anything else (loopback, private, link-local, multicast, unique-local, documentation,
 * an IPv4-mapped IPv6 form of any of them, a string that is no address) is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return !v4.check(bare, 'ipv4');
  if (!isIPv6(bare)) return false;
  const mapped = embeddedV4(bare.toLowerCase());
  if (mapped !== undefined) return isPublicAddress(mapped);
  // ::ffff:0:0/96 written some other way (expanded zeros): refused rather than parsed twice.
  if (/^(0{1,4}:){5}ffff:/i.test(bare) || /^::ffff:/i.test(bare)) return false;
  // IPv4-compatible ::a.b.c.d (deprecated) embeds an IPv4 address too.
  if (/^::\d+\.\d+\.\d+\.\d+$/.test(bare)) return false;
  return !v6.check(bare, 'ipv6');
}

/** Whether an address is a loopback one (127.0.0.0/8, ::1, or their IPv4-mapped forms). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (!isIPv6(bare)) return false;
  const mapped = embeddedV4(bare);
  if (mapped !== undefined) return mapped.startsWith('127.');
  return bare === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(bare);
}

/**
 * A socket `lookup` that resolves as dns.lookup does, then refuses the answer if any address is
 * not `allowed`: the socket connects to the address checked here, so a name that resolves
 * otherwise a moment later (DNS rebinding) changes nothing. Used by every outbound request to a
 * URL someone else chose (webhooks, client metadata documents).
 */
export function guardedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, found) => {
      const addresses = found as unknown as LookupAddress[];
      if (err) return callback(err, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !allowed(a.address)))
        return callback(Object.assign(new Error('address not public'), { code: 'EADDRNOTPUBLIC' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

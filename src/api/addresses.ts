/**
 * What kind of address a host is, as a pure function (no DNS, no connection): used to explain an
 * upstream refusal ("a link-local address") and to refuse cloud metadata addresses outright.
 *
 * Classes (the first that matches wins, so 169.254.169.254 is `metadata`, not `link-local`):
 * - metadata: cloud instance metadata endpoints (169.254.169.254, 169.254.170.2, 100.100.100.200,
 *   fd00:ec2::254). Never a legitimate upstream.
 * - loopback: 127.0.0.0/8, ::1, and the name `localhost`.
 * - link-local: 169.254.0.0/16, fe80::/10.
 * - private: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7, 0.0.0.0/8.
 * - public: any other IP literal.
 * - name: a host name (what it resolves to is only known at connect time).
 * IPv4-mapped IPv6 (::ffff:a.b.c.d) is classified as the IPv4 address it carries.
 * Uses Node's own `net.BlockList` and `net.isIP` rather than hand-written CIDR arithmetic.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'metadata' | 'public' | 'name';

function list(entries: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const b = new BlockList();
  for (const [net, prefix, type] of entries) b.addSubnet(net, prefix, type);
  return b;
}

const METADATA = new BlockList();
METADATA.addAddress('169.254.169.254', 'ipv4');
METADATA.addAddress('169.254.170.2', 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');

const LOOPBACK = list([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const LINK_LOCAL = list([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const PRIVATE = list([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['0.0.0.0', 8, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
  ['::', 128, 'ipv6'],
]);

/** "[::1]" -> "::1"; "::ffff:127.0.0.1" -> "127.0.0.1"; "::ffff:7f00:1" -> "127.0.0.1". */
function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (hex?.[1] && hex[2]) {
    const a = Number.parseInt(hex[1], 16);
    const b = Number.parseInt(hex[2], 16);
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return h.replace(/\.$/, '');
}

/** The class of a host (IP literal or name), without any lookup. */
export function classifyAddress(host: string): AddressClass {
  const h = normaliseHost(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return 'loopback';
  const v = isIP(h);
  if (v === 0) return 'name';
  const type = v === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.check(h, type)) return 'metadata';
  if (LOOPBACK.check(h, type)) return 'loopback';
  if (LINK_LOCAL.check(h, type)) return 'link-local';
  if (PRIVATE.check(h, type)) return 'private';
  return 'public';
}

/** Words for a refusal message: "a link-local address". */
export function describeAddressClass(c: AddressClass): string {
  switch (c) {
    case 'metadata':
      return 'a cloud metadata address';
    case 'loopback':
      return 'a loopback address (this machine)';
    case 'link-local':
      return 'a link-local address';
    case 'private':
      return 'a private-network address';
    case 'public':
      return 'a public address';
    default:
      return 'a host name';
  }
}

/** The resolver shape of `dns.lookup` as net.connect calls it (options may ask for `all`). */
export type LookupFn = (
  hostname: string,
  options: { all?: boolean; family?: number | string; hints?: number },
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** Error code of a connection refused because a host name resolved to a metadata address. */
export const METADATA_REFUSED = 'EUPSTREAM_METADATA';

/**
 * A `lookup` for net/tls connect that refuses a host name resolving to a cloud metadata address
 * (DNS rebinding: an allowed name that later points at 169.254.169.254). Other classes pass: the
 * allow-list already decided which names may be used. `resolve` is injectable for tests.
 */
export function guardedLookup(resolve: LookupFn = dnsLookup as unknown as LookupFn): LookupFn {
  return (hostname, options, callback) => {
    resolve(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (list.some((a) => classifyAddress(a) === 'metadata')) {
        const e: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to a cloud metadata address; the bot never connects there`,
        );
        e.code = METADATA_REFUSED;
        return callback(e, address, family);
      }
      callback(null, address, family);
    });
  };
}

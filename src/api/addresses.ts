/**
 * What kind of address a host is, as a pure function (no DNS, no connection): used to explain an
 * upstream refusal ("a link-local address") and to refuse cloud metadata addresses outright.
 *
 * Classes (the first that matches wins, so 169.254.169.254 is `metadata`, not `link-local`):
 * - metadata: cloud instance metadata endpoints (169.254.169.254, 169.254.170.2, 100.100.100.200,
 *   192.0.0.192, fd00:ec2::254). Never a legitimate upstream.
 * - loopback: 127.0.0.0/8, ::1, and the name `localhost`.
 * - link-local: 169.254.0.0/16, fe80::/10.
 * - private: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7, 0.0.0.0/8.
 * - public: any other IP literal.
 * - name: a host name (what it resolves to is only known at connect time).
 * IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, IPv4-compatible, 6to4) are
 * classified as the IPv4 address they carry.
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
METADATA.addAddress('192.0.0.192', 'ipv4');
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

/** Two 16-bit groups (hex) as dotted IPv4: ("a9fe", "a9fe") -> "169.254.169.254". */
function groupsToIpv4(hi: string, lo: string): string {
  const a = Number.parseInt(hi, 16);
  const b = Number.parseInt(lo, 16);
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

/**
 * IPv6 forms that carry an IPv4 address, in their canonical text (WHATWG URL serialisation:
 * lower case, `::` compression, the IPv4 part as two hex groups). Each is classified as the
 * IPv4 address it carries, so `64:ff9b::a9fe:a9fe` is the metadata address, not `public`:
 * - IPv4-mapped `::ffff:0:0/96` and IPv4-translated (SIIT) `::ffff:0:0:0/96`;
 * - NAT64, the well-known prefix `64:ff9b::/96` and the local-use `64:ff9b:1::/48` (its /96
 *   deployments carry the address in the last 32 bits);
 * - IPv4-compatible `::/96` (deprecated; `::` and `::1` themselves are not matched);
 * - 6to4 `2002::/16` (the address in bits 16-47).
 */
const EMBEDDED_IPV4: RegExp[] = [
  /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/,
  /^::ffff:0:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/,
  /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/,
  /^64:ff9b:1:(?:[0-9a-f]{0,4}:){0,4}:?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/,
  /^::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/,
  /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/,
];

/**
 * "[::1]" -> "::1"; "::ffff:127.0.0.1" and "::ffff:7f00:1" -> "127.0.0.1"; "64:ff9b::a9fe:a9fe"
 * -> "169.254.169.254" (see EMBEDDED_IPV4); a trailing dot of a name is dropped.
 */
function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (isIP(h) === 6) {
    let canonical = h;
    try {
      canonical = new URL(`http://[${h}]/`).hostname.slice(1, -1);
    } catch {
      // isIP accepted it, URL did not (a zone id): classify as written
    }
    for (const re of EMBEDDED_IPV4) {
      const m = re.exec(canonical);
      if (m?.[1] && m[2]) return groupsToIpv4(m[1], m[2]);
    }
    return canonical;
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

/**
 * Outbound address classification for the SSRF guard (service-spec.md, "Network and file protection";
 * OWASP SSRF Prevention Cheat Sheet). Ranges come from ipaddr.js (IANA special-purpose registries, RFC 6890);
 * only its `unicast` class is allowed, and its known gaps are closed explicitly: IPv4-compatible IPv6
 * (`::/96`), NAT64 (`64:ff9b::/96`, RFC 6052/8215), 6to4 (`2002::/16`), Teredo (`2001::/32`), deprecated
 * site-local (`fec0::/10`) and cloud metadata endpoints that sit in "unicast" space (Azure's 168.63.129.16).
 *
 * Callers classify the WHATWG-parsed `URL.hostname`, which has already turned decimal, octal, hex, short and
 * full-width IPv4 spellings into dotted decimal; `parseIp` additionally accepts those spellings itself so the
 * classifier is safe on raw input too.
 */
import ipaddr from 'ipaddr.js';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** The verdict on one address. */
export interface AddressVerdict {
  allowed: boolean;
  /** Canonical text of the address (IPv6 in RFC 5952 form). */
  address: string;
  family: 4 | 6;
  /** Why it is refused (`loopback`, `cloud metadata endpoint`...), when it is. */
  reason?: string;
}

/** Human names of ipaddr.js ranges. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified address (0.0.0.0/8, ::)',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address (100.64.0.0/10)',
  private: 'private address (RFC 1918)',
  reserved: 'reserved address',
  benchmarking: 'benchmarking address',
  amt: 'AMT relay address',
  as112: 'AS112 address',
  as112v6: 'AS112 address',
  uniqueLocal: 'unique-local IPv6 address (fc00::/7)',
  rfc6145: 'IPv4-translated IPv6 address',
  rfc6052: 'NAT64 IPv6 address (64:ff9b::/96)',
  '6to4': '6to4 IPv6 address (2002::/16)',
  teredo: 'Teredo IPv6 address (2001::/32)',
  deprecatedSiteLocal: 'site-local IPv6 address (fec0::/10)',
  discard: 'discard-only IPv6 address (100::/64)',
  orchid2: 'ORCHID address',
  deprecatedOrchid: 'ORCHID address',
  droneRemoteIdProtocolEntityTags: 'drone remote ID address',
  segmentRouting: 'segment-routing IPv6 address',
};

/** Metadata services of cloud providers, refused by name of their purpose so logs say why. */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack IMDS
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure WireServer: "unicast" to ipaddr.js
  'fd00:ec2::254', // AWS IMDS over IPv6
]);

/** IPv6 blocks ipaddr.js calls unicast (or classifies inconsistently across versions) that can reach IPv4 space. */
const EXTRA_V6_DENIALS: Array<[string, string]> = [
  ['::/96', 'IPv4-compatible IPv6 address (::/96)'],
  ['::ffff:0:0:0/96', 'IPv4-translated IPv6 address'],
  ['64:ff9b::/96', 'NAT64 IPv6 address (64:ff9b::/96)'],
  ['64:ff9b:1::/48', 'NAT64 IPv6 address (64:ff9b:1::/48)'],
  ['2002::/16', '6to4 IPv6 address (2002::/16)'],
  ['2001::/32', 'Teredo IPv6 address (2001::/32)'],
  ['fec0::/10', 'site-local IPv6 address (fec0::/10)'],
];
const EXTRA_V6_RANGES = EXTRA_V6_DENIALS.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const);

/** Host names that always mean this machine or a metadata service (RFC 6761 `localhost`, cloud metadata). */
const DENIED_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Lower-cases a URL host, strips IPv6 brackets and one trailing dot (`example.com.` is `example.com`). */
export function normalizeHostname(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/** Parses an IP address in any spelling inet_aton accepts (and IPv6), or returns `null` for a host name. */
export function parseIp(text: string): Ip | null {
  const host = normalizeHostname(text);
  if (!ipaddr.isValid(host)) return null;
  try {
    return ipaddr.parse(host);
  } catch {
    return null;
  }
}

function canonical(ip: Ip): string {
  return ip.kind() === 'ipv6' ? (ip as ipaddr.IPv6).toRFC5952String() : ip.toString();
}

function verdictOf(ip: Ip, prefix = ''): AddressVerdict {
  const family = ip.kind() === 'ipv6' ? 6 : 4;
  const address = canonical(ip);
  const refuse = (reason: string): AddressVerdict => ({ allowed: false, address, family, reason: prefix + reason });
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // A zone id (fe80::1%eth0) only exists on link-local addresses; refuse any address that carries one.
    if (v6.zoneId) return refuse('IPv6 address with a zone id');
    if (v6.isIPv4MappedAddress()) return verdictOf(v6.toIPv4Address(), 'IPv4-mapped ');
  }
  if (METADATA_ADDRESSES.has(address)) return refuse(`cloud metadata endpoint ${address}`);
  const range = ip.range();
  if (range !== 'unicast') return refuse(RANGE_NAMES[range] ?? `${range} address`);
  if (ip.kind() === 'ipv6') {
    for (const [block, reason] of EXTRA_V6_RANGES) if ((ip as ipaddr.IPv6).match(block)) return refuse(reason);
  }
  return { allowed: true, address, family };
}

/**
 * Classifies one IP address: allowed only when it is public unicast.
 * Throws `TypeError` when `address` is not an IP address.
 */
export function classifyAddress(address: string): AddressVerdict {
  const ip = parseIp(address);
  if (!ip) throw new TypeError(`not an IP address: ${JSON.stringify(address.slice(0, 80))}`);
  return verdictOf(ip);
}

/** Why a host name (not an IP literal) is refused before any resolution, or `undefined`. */
export function deniedHostname(hostname: string): string | undefined {
  const host = normalizeHostname(hostname);
  if (DENIED_NAMES.has(host)) return host === 'localhost' ? 'localhost' : `cloud metadata host ${host}`;
  if (host.endsWith('.localhost')) return 'a name under .localhost (RFC 6761)';
  return undefined;
}

/** `AEH_ALLOW_HOSTS` compiled: host names, `*.suffix` wildcards, IP addresses and CIDR blocks, each with an optional port. */
export interface HostAllowList {
  /** True when the URL host (name or IP literal) is listed, for `port` when given (an entry's port must match). */
  allowsHost(hostname: string, port?: number): boolean;
  /** True when an IP address (literal or resolved) is listed or falls in a listed CIDR block, for `port` when given. */
  allowsAddress(address: string, port?: number): boolean;
  readonly size: number;
}

/** Normalises an allow-list entry the way the WHATWG URL parser normalises a host (`127.1` → `127.0.0.1`). */
function hostOfEntry(entry: string): string | null {
  try {
    const bracketed = !entry.startsWith('[') && entry.includes(':') && ipaddr.IPv6.isValid(entry) ? `[${entry}]` : entry;
    return normalizeHostname(new URL(`http://${bracketed}/`).hostname);
  } catch {
    return null;
  }
}

/**
 * Splits `host:port` (`agent.internal:8080`, `10.0.0.5:9000`, `[::1]:9000`, `*.example.com:8443`). A bare IPv6
 * address (`::1`, `fd00::1`) has no port: an IPv6 address with a port must be bracketed.
 */
function splitPort(entry: string): { host: string; port?: number } {
  if (ipaddr.IPv6.isValid(entry) || (entry.includes('/') && ipaddr.isValidCIDR(entry))) return { host: entry };
  const match = /^(.*):(\d{1,5})$/.exec(entry);
  if (!match || Number(match[2]) > 65535) return { host: entry };
  const host = match[1].startsWith('[') && match[1].endsWith(']') ? match[1].slice(1, -1) : match[1];
  return { host, port: Number(match[2]) };
}

const portMatches = (allowed: number | undefined, port: number | undefined) => allowed === undefined || allowed === port;

/**
 * Compiles `AEH_ALLOW_HOSTS` entries. Entries are host names (`agent.internal`, matched after URL
 * normalisation), `*.example.com` (any name below it), IP addresses (`127.0.0.1`, `::1`) or CIDR blocks
 * (`10.1.0.0/16`), each optionally with `:port` (`127.0.0.1:9000`, `[::1]:9000`): with a port the entry exempts
 * that service only, without one every port of the host.
 */
export function createHostAllowList(entries: readonly string[]): HostAllowList {
  const names: Array<[string, number | undefined]> = [];
  const suffixes: Array<[string, number | undefined]> = [];
  const addresses: Array<[string, number | undefined]> = [];
  const blocks: Array<[Ip, number, number | undefined]> = [];
  for (const raw of entries) {
    const { host: entry, port } = splitPort(raw.trim().toLowerCase());
    if (!entry) continue;
    if (entry.startsWith('*.')) {
      suffixes.push([`.${normalizeHostname(entry.slice(2))}`, port]);
    } else if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      const [base, bits] = ipaddr.parseCIDR(entry);
      blocks.push([base, bits, port]);
    } else {
      const host = hostOfEntry(entry);
      if (!host) continue;
      const ip = parseIp(host);
      if (ip) addresses.push([canonical(ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip), port]);
      else names.push([host, port]);
    }
  }
  const allowsAddress = (address: string, port?: number): boolean => {
    let ip = parseIp(address);
    if (!ip) return false;
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    const text = canonical(ip);
    if (addresses.some(([listed, allowed]) => listed === text && portMatches(allowed, port))) return true;
    return blocks.some(([base, bits, allowed]) => base.kind() === ip!.kind() && ip!.match(base, bits) && portMatches(allowed, port));
  };
  return {
    size: names.length + suffixes.length + addresses.length + blocks.length,
    allowsHost(hostname, port) {
      const host = normalizeHostname(hostname);
      if (parseIp(host)) return allowsAddress(host, port);
      return names.some(([name, allowed]) => name === host && portMatches(allowed, port))
        || suffixes.some(([suffix, allowed]) => host.endsWith(suffix) && portMatches(allowed, port));
    },
    allowsAddress,
  };
}

/**
 * True for an address that is this machine whatever the interface: loopback (127/8, `::1`), unspecified
 * (`0.0.0.0`, `::`), their IPv4-mapped forms, and the service's bind address `serviceHost` when it is an IP.
 */
export function isLocalAddress(address: string, serviceHost?: string): boolean {
  let ip = parseIp(address);
  if (!ip) return false;
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === 'loopback' || range === 'unspecified') return true;
  const bound = serviceHost ? parseIp(serviceHost) : null;
  if (!bound) return false;
  const boundIp = bound.kind() === 'ipv6' && (bound as ipaddr.IPv6).isIPv4MappedAddress() ? (bound as ipaddr.IPv6).toIPv4Address() : bound;
  return canonical(boundIp) === canonical(ip);
}

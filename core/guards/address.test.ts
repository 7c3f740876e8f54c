import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { classifyAddress, createHostAllowList, deniedHostname, isLocalAddress, normalizeHostname, parseIp } from './address.ts';

/** What the WHATWG URL parser makes of a host, as the guard sees it. */
const urlHost = (host: string) => normalizeHostname(new URL(`http://${host}/`).hostname);

describe('core: address classifier', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'], ['169.254.1.1', 'link-local'], ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'], ['100.100.100.200', 'cloud metadata'], ['168.63.129.16', 'cloud metadata'],
    ['224.0.0.1', 'multicast'], ['255.255.255.255', 'broadcast'], ['240.0.0.1', 'reserved'], ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'], ['::', 'unspecified'], ['fe80::1', 'link-local'], ['fc00::1', 'unique-local'], ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'], ['::ffff:127.0.0.1', 'IPv4-mapped loopback'], ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata'], ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::7f00:1', 'IPv4-compatible'], ['::a00:1', 'IPv4-compatible'], ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['64:ff9b::7f00:1', 'NAT64'], ['64:ff9b::a9fe:a9fe', 'NAT64'], ['64:ff9b:1::1', 'NAT64'], ['2002:7f00:1::', '6to4'],
    ['2001::1', 'Teredo'], ['2001:0:4136:e378::1', 'Teredo'], ['fec0::1', 'site-local'], ['ff02::1', 'multicast'], ['2001:db8::1', 'reserved'],
  ])('refuses %s (%s)', (address, reason) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain(reason);
  });

  it.each(['1.1.1.1', '8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])(
    'allows public unicast %s',
    (address) => expect(classifyAddress(address).allowed).toBe(true),
  );

  it('reads the spellings inet_aton accepts, and the URL parser agrees', () => {
    for (const spelling of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.0.0.1', '017700000001']) {
      expect(classifyAddress(spelling).reason).toContain('loopback');
      expect(urlHost(spelling)).toBe('127.0.0.1');
    }
    expect(urlHost('１２７．０．０．１')).toBe('127.0.0.1');
    expect(urlHost('[::ffff:127.0.0.1]')).toBe('::ffff:7f00:1');
    expect(urlHost('%31%32%37.0.0.1')).toBe('127.0.0.1');
  });

  it('refuses zone ids and says a host name is not an address', () => {
    expect(classifyAddress('fe80::1%eth0').allowed).toBe(false);
    expect(parseIp('example.com')).toBeNull();
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
  });

  it('denies localhost and metadata names, whatever their case or trailing dot', () => {
    for (const name of ['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'Metadata.Google.Internal.', 'metadata', 'instance-data']) {
      expect(deniedHostname(name)).toBeDefined();
    }
    expect(deniedHostname('example.com')).toBeUndefined();
    expect(deniedHostname('notlocalhost')).toBeUndefined();
  });
});

describe('core: host allow-list (AEH_ALLOW_HOSTS)', () => {
  const list = createHostAllowList(['agent.test', '*.internal.example', '127.0.0.1', '::1', '10.1.0.0/16', 'LLM.Test.']);

  it('matches names after normalisation', () => {
    expect(list.allowsHost('agent.test')).toBe(true);
    expect(list.allowsHost('AGENT.TEST.')).toBe(true);
    expect(list.allowsHost('llm.test')).toBe(true);
    expect(list.allowsHost('a.b.internal.example')).toBe(true);
    expect(list.allowsHost('internal.example')).toBe(false);
    expect(list.allowsHost('agent.test.evil.com')).toBe(false);
    expect(list.allowsHost('evilagent.test')).toBe(false);
  });

  it('matches IP literals in any spelling, and CIDR blocks', () => {
    expect(list.allowsHost('127.0.0.1')).toBe(true);
    expect(list.allowsHost(urlHost('127.1'))).toBe(true);
    expect(list.allowsHost('[::1]')).toBe(true);
    expect(list.allowsHost('::ffff:127.0.0.1')).toBe(true);
    expect(list.allowsHost('127.0.0.2')).toBe(false);
    expect(list.allowsAddress('10.1.200.3')).toBe(true);
    expect(list.allowsAddress('10.2.0.1')).toBe(false);
    expect(createHostAllowList([]).allowsHost('127.0.0.1')).toBe(false);
  });

  it('accepts host:port entries that exempt that port only (issue 13 item 10)', () => {
    const ported = createHostAllowList(['agent.test:8080', '127.0.0.1:9000', '[::1]:9001', '*.svc.example:8443', '10.9.0.0/16', 'fd00::1']);
    expect(ported.allowsHost('agent.test', 8080)).toBe(true);
    expect(ported.allowsHost('agent.test', 80)).toBe(false);
    expect(ported.allowsHost('agent.test')).toBe(false);
    expect(ported.allowsHost('127.0.0.1', 9000)).toBe(true);
    expect(ported.allowsHost(urlHost('127.1'), 9000)).toBe(true);
    expect(ported.allowsHost('127.0.0.1', 9001)).toBe(false);
    expect(ported.allowsHost('[::1]', 9001)).toBe(true);
    expect(ported.allowsHost('[::1]', 9000)).toBe(false);
    expect(ported.allowsHost('a.svc.example', 8443)).toBe(true);
    expect(ported.allowsHost('a.svc.example', 443)).toBe(false);
    expect(ported.allowsAddress('10.9.3.3', 1234)).toBe(true);
    // A bare IPv6 address has no port: `fd00::1` is the address, not `fd00:` port 1.
    expect(ported.allowsHost('[fd00::1]', 80)).toBe(true);
    expect(list.allowsHost('agent.test', 1234)).toBe(true);
  });
});

describe('core: isLocalAddress', () => {
  it('is loopback, unspecified, their IPv4-mapped forms and the bind address', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '0.0.0.0', '::', '::ffff:127.0.0.1']) expect(isLocalAddress(address), address).toBe(true);
    expect(isLocalAddress('10.0.0.5')).toBe(false);
    expect(isLocalAddress('10.0.0.5', '10.0.0.5')).toBe(true);
    expect(isLocalAddress('::ffff:10.0.0.5', '10.0.0.5')).toBe(true);
    expect(isLocalAddress('93.184.215.14', 'example.com')).toBe(false);
  });
});

const octet = fc.integer({ min: 0, max: 255 });
const forbiddenV4 = fc.oneof(
  fc.tuple(fc.constant(127), octet, octet, octet),
  fc.tuple(fc.constant(10), octet, octet, octet),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
  fc.tuple(fc.constant(0), octet, octet, octet),
);

/** Spellings of one IPv4 address that resolvers and URL parsers accept. */
function spellings([a, b, c, d]: number[]): string[] {
  const long = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    `${a}.${b}.${c}.${d}`, String(long), `0x${long.toString(16)}`, `0${long.toString(8)}`,
    `0x${a.toString(16)}.0x${b.toString(16)}.0x${c.toString(16)}.0x${d.toString(16)}`,
    `0${a.toString(8)}.0${b.toString(8)}.0${c.toString(8)}.0${d.toString(8)}`,
    `${a}.${(b << 16) + (c << 8) + d}`, `::ffff:${a}.${b}.${c}.${d}`,
    `::ffff:${((a << 8) + b).toString(16)}:${((c << 8) + d).toString(16)}`,
    `64:ff9b::${a}.${b}.${c}.${d}`, `::${a}.${b}.${c}.${d}`,
  ];
}

describe('core: address classifier properties (fast-check)', () => {
  it('refuses every spelling of every forbidden IPv4 address, raw or after URL parsing', () => {
    fc.assert(
      fc.property(forbiddenV4, (octets) => {
        for (const spelling of spellings(octets)) {
          expect(classifyAddress(spelling).allowed).toBe(false);
          const host = spelling.includes(':') ? `[${spelling}]` : spelling;
          expect(classifyAddress(urlHost(host)).allowed).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with itself across spellings of any IPv4 address', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (octets) => {
        const verdicts = spellings(octets).slice(0, 7).map((spelling) => classifyAddress(spelling).allowed);
        expect(new Set(verdicts).size).toBe(1);
        // IPv4-mapped forms inherit the verdict; compatible, NAT64 forms are always refused.
        expect(classifyAddress(spellings(octets)[7]).allowed).toBe(verdicts[0]);
        expect(classifyAddress(spellings(octets)[9]).allowed).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on a parsed URL host and never allows one inside fc00::/7 or fe80::/10', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }), fc.boolean(), (rest, uniqueLocal) => {
        const first = uniqueLocal ? 0xfc00 | (rest[0] & 0x1ff) : 0xfe80 | (rest[0] & 0x3f);
        const address = [first, ...rest.slice(1), rest[0]].map((part) => part.toString(16)).join(':');
        expect(classifyAddress(urlHost(`[${address}]`)).allowed).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, it, expect } from 'vitest';
import { addressKey, clientAddress, createRateLimiter } from './rate-limiter.ts';

describe('core: rate limiter', () => {
  it('allows a burst of perMinute, then refuses with the seconds until the next token', () => {
    let now = 0;
    const limiter = createRateLimiter({ perMinute: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.consume('k').allowed)).toEqual([true, true, true]);
    const refused = limiter.consume('k');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 20, firstRefusal: true });
    expect(limiter.consume('k').firstRefusal).toBe(false);
    now = 19_000;
    expect(limiter.consume('k')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = 20_000;
    expect(limiter.consume('k').allowed).toBe(true);
    expect(limiter.consume('other').allowed).toBe(true);
  });

  it('peeks without taking', () => {
    const limiter = createRateLimiter({ perMinute: 1, now: () => 0 });
    expect(limiter.peek('k').allowed).toBe(true);
    expect(limiter.peek('k').allowed).toBe(true);
    limiter.consume('k');
    expect(limiter.peek('k')).toMatchObject({ allowed: false, firstRefusal: true });
  });

  it('bounds its memory by evicting the least recently used keys', () => {
    const limiter = createRateLimiter({ perMinute: 1, now: () => 0, maxKeys: 100 });
    for (let index = 0; index < 1000; index++) limiter.consume(`k${index}`);
    expect(limiter.size).toBe(100);
  });

  it('evicts by last use, to the second: a key used again a second later outlives newer idle keys', () => {
    let clock = 0;
    const limiter = createRateLimiter({ perMinute: 1, now: () => clock, maxKeys: 2 });
    limiter.consume('old');
    limiter.consume('idle');
    clock = 1000;
    expect(limiter.consume('old').allowed).toBe(false); // used again: it moves to the recent end
    limiter.consume('new'); // evicts "idle", the least recently used
    clock = 1001;
    expect(limiter.consume('old')).toMatchObject({ allowed: false, firstRefusal: false });
    expect(limiter.consume('idle').allowed).toBe(true); // forgotten, so full again
  });

  it('does not create a bucket for a key it only peeks at', () => {
    const limiter = createRateLimiter({ perMinute: 5, now: () => 0 });
    expect(limiter.peek('never-seen')).toMatchObject({ allowed: true, remaining: 5 });
    expect(limiter.size).toBe(0);
  });
});

describe('core: client address', () => {
  it('groups IPv6 by /64 and unwraps IPv4-mapped addresses', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb::9'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey(undefined)).toBe('unknown');
  });

  it('takes the proxy-appended (last) entry of the trusted header, else asks the runtime', () => {
    const request = new Request('http://x/', { headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' } });
    expect(clientAddress(request, undefined, {}, 'x-forwarded-for')).toBe('203.0.113.9');
    expect(clientAddress(request, { peer: '198.51.100.1' }, { clientAddress: (_r, b) => (b as { peer: string }).peer })).toBe('198.51.100.1');
    expect(clientAddress(request, undefined, { clientAddress: () => { throw new Error('no socket'); } })).toBeUndefined();
  });
});

/**
 * Rate limits (api-contract.md: 429 `rate_limited` with `Retry-After`, RFC 9110 §10.2.3): token buckets per
 * client address on public routes, per principal on protected ones, and per client address for failed
 * authentications (brute-force protection). Limits are per instance and in memory: a bucket costs ~100 bytes,
 * the map is bounded (least recently used keys are evicted), and no timer runs.
 *
 * The client address comes from the runtime (`capabilities.clientAddress`, the socket's peer on Node) or, behind
 * a reverse proxy the operator trusts, from the header named in `AEH_CLIENT_IP_HEADER` (the last, proxy-added
 * entry of `X-Forwarded-For`). IPv6 clients are keyed by their /64, which is what one subscriber gets.
 */
import type ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';
import { parseIp } from './address.ts';
import type { RuntimeCapabilities } from '../capabilities.ts';

/** What a limiter says about one request. */
export interface RateDecision {
  allowed: boolean;
  /** Whole requests left in the bucket. */
  remaining: number;
  /** Seconds until one request is allowed again (0 when allowed). */
  retryAfterSeconds: number;
  /** True on the first refusal since this key was last allowed (audit once per burst, not per request). */
  firstRefusal: boolean;
}

/** A token bucket per key: `perMinute` requests a minute, bursts up to `perMinute`. */
export interface RateLimiter {
  /** Takes one token when there is one. */
  consume(key: string): RateDecision;
  /** Says whether a token is there without taking it. */
  peek(key: string): RateDecision;
  readonly size: number;
}

export interface RateLimiterOptions {
  perMinute: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
  /** Keys kept before the least recently used are dropped. Default 100 000. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
  /** When the key last moved to the most recently used end of the map. */
  movedAt: number;
  refusing: boolean;
}


/** Builds an in-memory token-bucket limiter. */
export function createRateLimiter({ perMinute, now = Date.now, maxKeys = 100_000 }: RateLimiterOptions): RateLimiter {
  const capacity = perMinute;
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, Bucket>();
  /** What a key never seen gets: a full bucket. Peeking at it need not create the bucket. */
  const untouched: RateDecision = Object.freeze({ allowed: true, remaining: Math.floor(capacity), retryAfterSeconds: 0, firstRefusal: false });

  function bucketOf(key: string): Bucket {
    const at = now();
    let bucket = buckets.get(key);
    if (bucket) {
      // Map order is least recently used first. Moving a key to the end costs a delete and an insert, so a
      // busy key moves at most once a second: the order is exact to the second, which is all eviction needs.
      if (at - bucket.movedAt >= 1000) {
        buckets.delete(key);
        buckets.set(key, bucket);
        bucket.movedAt = at;
      }
      bucket.tokens = Math.min(capacity, bucket.tokens + (at - bucket.updatedAt) * perMs);
      bucket.updatedAt = at;
    } else {
      bucket = { tokens: capacity, updatedAt: at, movedAt: at, refusing: false };
      while (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string);
      buckets.set(key, bucket);
    }
    return bucket;
  }

  function decide(bucket: Bucket, take: boolean): RateDecision {
    if (bucket.tokens >= 1) {
      if (take) bucket.tokens -= 1;
      bucket.refusing = false;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterSeconds: 0, firstRefusal: false };
    }
    const firstRefusal = !bucket.refusing;
    bucket.refusing = true;
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)), firstRefusal };
  }

  return {
    consume: (key) => decide(bucketOf(key), true),
    // Peeking at a key never seen must not create its bucket: the brute-force check peeks at every client.
    peek: (key) => (buckets.has(key) ? decide(bucketOf(key), false) : untouched),
    get size() {
      return buckets.size;
    },
  };
}

/** The limiters of one app and how it finds a client's address. */
export interface RateLimits {
  protected: RateLimiter;
  public: RateLimiter;
  authFailures: RateLimiter;
  /** The key of the calling client: its address (IPv6 by /64), or `unknown` when the runtime cannot tell. */
  clientKey(request: Request, bindings: unknown): string;
}

/** The client address as the runtime or the trusted proxy header reports it, or `undefined`. */
export function clientAddress(request: Request, bindings: unknown, capabilities: Pick<RuntimeCapabilities, 'clientAddress'>, proxyHeader?: string): string | undefined {
  if (proxyHeader) {
    const value = request.headers.get(proxyHeader);
    // The last entry is the one the trusted proxy appended; earlier ones are whatever the client claimed.
    const last = value?.split(',').map((part) => part.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  try {
    return capabilities.clientAddress?.(request, bindings);
  } catch {
    return undefined;
  }
}

// Parsing an address costs more than the rest of a rate-limit decision; clients repeat, so keys are kept.
const addressKeys = new Map<string, string>();
const ADDRESS_KEYS_KEPT = 10_000;

/** Groups an address into its rate-limit key: IPv4 as is, IPv6 by its /64. */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  let key = addressKeys.get(address);
  if (key === undefined) {
    key = computeAddressKey(address);
    if (addressKeys.size >= ADDRESS_KEYS_KEPT) addressKeys.clear();
    addressKeys.set(address, key);
  }
  return key;
}

function computeAddressKey(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address.slice(0, 64);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    return `${v6.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
  }
  return ip.toString();
}

/** Builds the app's limiters from `config.rateLimit` (`AEH_RATE_LIMIT_PER_MINUTE` and friends). */
export function createRateLimits(config: Pick<Config, 'rateLimit' | 'clientIpHeader'>, capabilities: Pick<RuntimeCapabilities, 'clientAddress' | 'now'>): RateLimits {
  const now = capabilities.now ?? Date.now;
  const proxyHeader = config.clientIpHeader;
  return {
    protected: createRateLimiter({ perMinute: config.rateLimit.protectedPerMinute, now }),
    public: createRateLimiter({ perMinute: config.rateLimit.publicPerMinute, now }),
    authFailures: createRateLimiter({ perMinute: config.rateLimit.authFailuresPerMinute, now }),
    clientKey: (request, bindings) => addressKey(clientAddress(request, bindings, capabilities, proxyHeader)),
  };
}

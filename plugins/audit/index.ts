/**
 * The audit log (issue "Identity and guards", item 7): every authenticated mutation and every refused request,
 * as the core reports them on the `audit` hook, appended to an append-only stream in storage, one JSON line per
 * entry in a segment per UTC day (`audit/<yyyy-mm-dd>.jsonl`). Entries say who (principal id or client address
 * key), what (method, path without query, action), when, the outcome and the request id; never a credential,
 * and every string passes the redactor on the way in.
 *
 * `GET /api/v1/audit` (permission `audit:read`) pages it newest first: `?limit=1..500&cursor=<next_cursor>`.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AuditEntry } from '../../core/hooks.ts';
import type { Store } from '../../core/storage.ts';
import { Problem } from '../../core/problems.ts';
import { redactValue } from '../../core/guards/redact.ts';

const PREFIX = 'audit';
const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 50;
/** `before` meaning "every line of the segment". */
const WHOLE_SEGMENT = 999_999_999;
const SEGMENT = /^\d{4}-\d{2}-\d{2}$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A stored audit entry: the hook's entry plus its position-independent id. */
export type StoredAuditEntry = AuditEntry & { id: string };

const ENTRY_SCHEMA = {
  type: 'object',
  required: ['id', 'at', 'request_id', 'method', 'path', 'action', 'outcome', 'status'],
  properties: {
    id: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    request_id: { type: 'string' },
    principal: { type: 'string', description: 'principal id (static-key, or iss|sub of a JWT); absent when unauthenticated' },
    client: { type: 'string', description: 'client address key (IPv6 by /64) or unknown' },
    method: { type: 'string' },
    path: { type: 'string', description: 'request path, without the query string' },
    action: { type: 'string' },
    outcome: { enum: ['ok', 'refused', 'error'] },
    status: { type: 'integer' },
    detail: { type: 'string' },
    run_id: { type: 'string', description: 'the run the request queued (evaluate) or cancelled (cancel)' },
    run_owner: { type: 'string', description: 'whose run a cancel stopped, when not the requester\'s own (runs:cancel-any)' },
    agent_envs: { type: 'array', items: { type: 'string' }, description: 'environment variables that run\'s agent may send (names only)' },
  },
};

/** Cursor: the segment and how many of its lines (from the start) are still to be read. */
interface Cursor {
  segment: string;
  before: number;
}

function encodeCursor(cursor: Cursor): string {
  return btoa(`${cursor.segment}:${cursor.before}`).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

function decodeCursor(raw: string): Cursor {
  const invalid = () => new Problem('validation_failed', { detail: 'cursor is not a value this service returned', errors: [{ path: '/cursor', message: 'invalid cursor' }] });
  let text: string;
  try {
    text = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    throw invalid();
  }
  const match = /^(\d{4}-\d{2}-\d{2}):(\d{1,9})$/.exec(text);
  if (!match) throw invalid();
  return { segment: match[1], before: Number(match[2]) };
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) {
    throw new Problem('validation_failed', { detail: `limit must be an integer from 1 to ${MAX_LIMIT}`, errors: [{ path: '/limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }] });
  }
  return limit;
}

async function segments(store: Store): Promise<string[]> {
  const keys = await store.keys(PREFIX);
  return keys
    .map((key) => key.split('/').pop()!.replace(/\.jsonl$/, ''))
    .filter((name) => SEGMENT.test(name))
    .sort()
    .reverse();
}

async function linesOf(store: Store, segment: string): Promise<string[]> {
  const bytes = await store.getBytes(`${PREFIX}/${segment}.jsonl`);
  return bytes ? decoder.decode(bytes).split('\n').filter(Boolean) : [];
}

/** Reads one page newest first. */
async function readPage(store: Store, limit: number, cursor?: Cursor): Promise<{ items: StoredAuditEntry[]; next_cursor: string | null }> {
  const items: StoredAuditEntry[] = [];
  const names = (await segments(store)).filter((name) => !cursor || name <= cursor.segment);
  for (const segment of names) {
    const lines = await linesOf(store, segment);
    let end = cursor && segment === cursor.segment ? Math.min(cursor.before, lines.length) : lines.length;
    while (end > 0 && items.length < limit) {
      end -= 1;
      try {
        items.push(JSON.parse(lines[end]) as StoredAuditEntry);
      } catch {
        // a torn last line after a crash is skipped, not fatal
      }
    }
    if (items.length >= limit) {
      const previous = names[names.indexOf(segment) + 1];
      const older = end > 0 ? { segment, before: end } : previous ? { segment: previous, before: WHOLE_SEGMENT } : null;
      return { items, next_cursor: older ? encodeCursor(older) : null };
    }
  }
  return { items, next_cursor: null };
}

function setup(host: PluginHost): void {
  // Appends are chained so that a read sees every entry emitted before it, in order.
  let pending: Promise<unknown> = Promise.resolve();
  let sequence = 0;
  const secrets = [host.config.apiKey, host.config.llm.apiKey].filter((secret): secret is string => !!secret);

  host.on('audit', (entry, services) => {
    const at = entry.at || new Date(services.now()).toISOString();
    const stored = redactValue({ ...entry, at, id: `${Date.parse(at).toString(36)}-${(sequence++).toString(36)}-${crypto.randomUUID().slice(0, 8)}` }, secrets) as StoredAuditEntry;
    const write = pending.then(() => services.store.append(`${PREFIX}/${at.slice(0, 10)}.jsonl`, encoder.encode(`${JSON.stringify(stored)}\n`)));
    pending = write.catch((error) => services.logger.error('audit log write failed', { error: (error as Error).message }));
    return write;
  });

  host.routes.register({
    method: 'GET',
    path: '/api/v1/audit',
    permission: 'audit:read',
    summary: 'The audit log, newest first: authenticated mutations and refused requests',
    tags: ['security'],
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
      { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'next_cursor of the previous page' },
    ],
    responses: {
      200: {
        description: 'One page of audit entries',
        schema: { type: 'object', required: ['items', 'next_cursor'], properties: { items: { type: 'array', items: ENTRY_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
      },
    },
    async handler(c) {
      const limit = parseLimit(c.req.query('limit'));
      const rawCursor = c.req.query('cursor');
      const cursor = rawCursor ? decodeCursor(rawCursor) : undefined;
      await pending;
      return c.json(await readPage(c.var.services.store, limit, cursor));
    },
  }, 'audit');
}

export default {
  name: 'audit',
  setup,
} satisfies Plugin;

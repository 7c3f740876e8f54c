/**
 * Idempotent submissions: `POST /api/evaluate` with an `Idempotency-Key` header (draft-ietf-httpapi-idempotency-
 * key-header) queues at most one evaluation per key and principal however often it is sent; a repeat answers the
 * ids the first request got (202, `Idempotent-Replayed: true`). The suites plugin sends one per (scenario, agent)
 * pair, so a launcher that resumes after a crash cannot queue a pair twice.
 *
 * The reservation (`idempotency/<digest>.json`: the ids, the body's digest, when it was made) is claimed with
 * `setIfAbsent` after the request was validated and before anything is stored, and such a submission writes its
 * task record after everything else: a task record proves the submission complete. A reservation without its
 * task belongs to an attempt still in flight (409 with `Retry-After`) or, once older than `IN_FLIGHT_MS`, to one
 * that stopped half-way (a crash); a repeat then completes it with the same ids (one taker per window, claimed
 * too), so a crash never leaves a key unusable nor a run half-stored.
 */
import { sha3Hex } from '../../../core/domain/hash.ts';
import { canonicalJson, wellFormed } from '../../../core/domain/certificate.ts';
import { keys } from '../../../core/domain/runs.ts';
import { Problem } from '../../../core/problems.ts';
import type { Engine } from '../engine.ts';
import type { Principal } from '../../../core/auth-manager.ts';
import { ownsRecord } from '../../../core/ownership.ts';

/** How long a key answers with the run it created (seconds); stores without expiry keep it. */
export const IDEMPOTENCY_TTL_S = 7 * 24 * 3600;
/** How long a reservation without its task is taken for an attempt in flight: a submission stores in milliseconds. */
export const IN_FLIGHT_MS = 30_000;

export interface RunIds {
  run_id: string;
  task_id: string;
}

interface Reservation extends RunIds {
  body_digest: string;
  reserved_at: number;
}

/** What an idempotent submission does: answer the ids of an earlier one (`replay`), or store one under `ids`. */
export interface Reserved {
  replay: boolean;
  ids: RunIds;
}

// Printable ASCII without spaces, as a bare token or an sf-string ("…"); the digest keeps it out of storage keys.
const KEY = /^(?:"([\x21\x23-\x7e]{1,200})"|([\x21\x23-\x7e]{1,200}))$/;

/** The `Idempotency-Key` of a request, `undefined` without one; 400 for a malformed one. */
function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = KEY.exec(header.trim());
  if (!match) throw new Problem('validation_failed', { detail: 'Idempotency-Key must be 1 to 200 printable ASCII characters without spaces or quotes, optionally in double quotes' });
  return match[1] ?? match[2];
}

/** Who submits: their stable id, and the id records of earlier versions may name them by (core/ownership.ts). */
export type Submitter = Pick<Principal, 'id' | 'formerId'>;

/** An idempotency key as one principal's: two principals' equal keys are unrelated. */
function idempotencyScope(engine: Engine, owner: Submitter | undefined, key: string, body: unknown) {
  const at = (id: string) => `idempotency/${sha3Hex(`${id}\n${key}`, engine.sha3).slice(0, 64)}`;
  // Stored under a former id (an API key's name, before ids were stable), a reservation is the principal's only
  // if made after the principal came to be: a new key reusing a revoked key's name must not get its runs.
  const former = owner?.formerId ? { where: at(owner.formerId.id), owner } : undefined;
  return { where: at(owner?.id ?? ''), former, bodyDigest: sha3Hex(canonicalJson(wellFormed(body)), engine.sha3) };
}

type Scope = ReturnType<typeof idempotencyScope>;

/**
 * What an earlier request with this key settles before anything is validated: its ids when it completed (so a
 * repeat is answered as the first was even if it would now be refused), 422 for another body, 409 while in flight.
 * `null`: no earlier request, or one that stopped half-way (the submission takes it over when it reserves).
 */
async function replayOf(engine: Engine, scope: Scope): Promise<RunIds | null> {
  const earlier = await engine.services.store.getJson<Reservation>(`${scope.where}.json`) ?? await formerReservation(engine, scope);
  if (!earlier) return null;
  if (earlier.body_digest !== scope.bodyDigest) {
    throw new Problem('idempotency_key_reused', { detail: 'this Idempotency-Key was sent before with another request body; use a new key for a new request' });
  }
  if (await engine.services.store.has(keys.task(earlier.task_id))) return { run_id: earlier.run_id, task_id: earlier.task_id };
  if (engine.services.now() - earlier.reserved_at < IN_FLIGHT_MS) throw inFlight();
  return null;
}

/** A completed reservation stored under the submitter's former id, when it is theirs. */
async function formerReservation(engine: Engine, scope: Scope): Promise<Reservation | null> {
  if (!scope.former) return null;
  const earlier = await engine.services.store.getJson<Reservation>(`${scope.former.where}.json`);
  const mine = earlier && ownsRecord(scope.former.owner, scope.former.owner.formerId!.id, new Date(earlier.reserved_at).toISOString());
  return mine && (await engine.services.store.has(keys.task(earlier.task_id))) ? earlier : null;
}

function inFlight(): Problem {
  return new Problem('conflict', { detail: 'a request with this Idempotency-Key is being processed; retry after a moment', headers: { 'Retry-After': String(Math.ceil(IN_FLIGHT_MS / 10_000)) } });
}

/**
 * Reserves `fresh` for this key just before the submission stores anything (`reserve`): answers the ids to store
 * under, or those of a request that completed meanwhile (then `replayed`). Taking over a stopped attempt keeps its ids.
 */
function reserver(engine: Engine, scope: Scope): { reserve(fresh: RunIds): Promise<Reserved>; replayed: boolean } {
  const { store } = engine.services;
  const reservation = {
    replayed: false,
    async reserve(fresh: RunIds): Promise<Reserved> {
      const now = engine.services.now();
      const record: Reservation = { ...fresh, body_digest: scope.bodyDigest, reserved_at: now };
      if (await store.setIfAbsent(`${scope.where}.json`, JSON.stringify(record), IDEMPOTENCY_TTL_S)) return { replay: false, ids: fresh };
      const completed = await replayOf(engine, scope);
      reservation.replayed = completed !== null;
      if (completed) return { replay: true, ids: completed };
      const earlier = await store.getJson<Reservation>(`${scope.where}.json`);
      if (!earlier) throw inFlight();
      // Two repeats of a stopped attempt: one takes it over per window, the other waits and then finds its task.
      const window = Math.floor(now / IN_FLIGHT_MS);
      if (!(await store.setIfAbsent(`${scope.where}.takeover/${window}`, String(now), Math.ceil((2 * IN_FLIGHT_MS) / 1000)))) throw inFlight();
      engine.services.telemetry.increment('evaluations.idempotent_takeovers');
      return { replay: false, ids: { run_id: earlier.run_id, task_id: earlier.task_id } };
    },
  };
  return reservation;
}

/**
 * Runs `submit` once per key and principal: without an `Idempotency-Key` header it simply submits; with one, an
 * earlier request's ids are answered (`replayed`) and a new submission is reserved under the key.
 */
export async function submitOnce(
  engine: Engine,
  header: string | undefined,
  owner: Submitter | undefined,
  body: unknown,
  submit: (reserve?: (fresh: RunIds) => Promise<Reserved>) => Promise<RunIds>,
): Promise<{ ids: RunIds; replayed: boolean }> {
  const key = idempotencyKeyOf(header);
  if (key === undefined) return { ids: await submit(), replayed: false };
  const scope = idempotencyScope(engine, owner, key, body);
  const earlier = await replayOf(engine, scope);
  const reservation = reserver(engine, scope);
  const ids = earlier ?? await submit(reservation.reserve);
  const replayed = earlier !== null || reservation.replayed;
  if (replayed) engine.services.telemetry.increment('evaluations.idempotent_replays');
  return { ids, replayed };
}

/**
 * Lifecycle hooks: how plugins react to what other plugins do without importing each other.
 * Handlers run in registration order and are awaited; a throwing handler is logged, not fatal.
 */
import type { EvidenceDigests, RunRecord } from './domain/runs.ts';

/** Events and their payloads. */
export interface HookEvents {
  /**
   * A run's trace and sidecars are final; certification signs it here. `record` is the run record about to be
   * stored as final (no `run.json` is stored until the handlers return, so that a client that sees the final
   * status finds the certificate; readers get the submitted record until then, core/domain/run-record.ts);
   * handlers read it from here, not from storage. Emitted without it, handlers read the run's record (`readRun`). `evidence` holds the exact bytes just stored of some of its sidecars (by file
   * name), so that certification hashes them without reading them back (issue 36); handlers must not change
   * them, and read any sidecar not in it from storage. `digests` holds the SHA3-256 (hex) of evidence the engine
   * hashed as it ran it (the plan, by file name; the trace, with its length, valid only while the stored trace
   * has that length), so that certification does not read and hash those again.
   */
  'run.finished': { run_id: string; record?: RunRecord; evidence?: Readonly<Record<string, Uint8Array>>; digests?: EvidenceDigests };
  /**
   * A finished run's evidence was deleted (retention), its certificate kept: `bytes_freed` no longer count
   * against `submitted_by`'s stored bytes.
   */
  'run.deleted': { run_id: string; submitted_by?: string; bytes_freed: number };
  /**
   * A shared blob no run refers to any more was deleted (retention): its `bytes` no longer count against
   * `charged_to`, the principal whose run first wrote it (core/domain/blobs.ts).
   */
  'blob.deleted': { digest: string; charged_to?: string; bytes: number };
  /** An authenticated mutation or a refused request, for the audit log. */
  'audit': AuditEntry;
}

export interface AuditEntry {
  at: string;
  request_id: string;
  principal?: string;
  /** Rate-limit key of the client address (IPv6 by /64), when the runtime reports one; never a credential. */
  client?: string;
  method: string;
  path: string;
  action: string;
  outcome: 'ok' | 'refused' | 'error';
  status: number;
  detail?: string;
  /** The run a request queued (`POST /api/evaluate`) or cancelled. */
  run_id?: string;
  /** The environment variables that run's agent may send (names, never values; `AEH_AGENT_KEY_ENVS`). */
  agent_envs?: string[];
  /** Whose run a request acted on, when not the requester's own (a cancel under `runs:cancel-any`). */
  run_owner?: string;
}

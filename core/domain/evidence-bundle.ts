/**
 * Evidence files stored bundled (issue 36): the sidecars a run writes when it ends (`scores.json`,
 * `failures.json`, `summary.json`) are kept as one record, `runs/<run_id>/sidecars.bundle`, holding each file's
 * exact bytes. One atomic write (temp, fsync, rename) instead of three: on a local disk each file costs an inode
 * and an fsync, most of a short run's fixed cost. The certificate's evidence ledger names and hashes the files,
 * not the record, exactly as before; `readEvidence` (packed-evidence.ts) cuts a file out of the bundle, so the
 * evidence route, `verify`, offline verification and every reader see the bytes that were judged. A bundle whose
 * framing does not add up yields no file at all: a damaged record is reported as missing evidence, never served
 * in part.
 *
 * Layout: one header line, `{"format":"aeh-bundle/1","files":[["scores.json",<bytes>],…]}` and `\n`, then the
 * files' bytes back to back in the header's order. Raw bytes after the header, not JSON strings: nothing is
 * escaped on write or unescaped on read, and the bytes stored are the bytes hashed.
 */
import { isSafeBasename } from './certificate.ts';
import { SIDECARS } from './runs.ts';

/** Version tag of bundles. */
export const BUNDLE_FORMAT = 'aeh-bundle/1';

/** The bundle's basename in a run's folder. */
export const BUNDLE_FILE = 'sidecars.bundle';

/**
 * The files a run's bundle may hold: readers look in it for these only, so asking for another (`world.json` of
 * a run without a world, on every certification) costs no read of the bundle.
 */
export const BUNDLED_FILES: ReadonlySet<string> = new Set([SIDECARS.scores, SIDECARS.failures, SIDECARS.summary]);

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const NEWLINE = 0x0a;
/** A header longer than this is not one this code wrote (a few names and lengths). */
const MAX_HEADER_BYTES = 64 * 1024;

/** The bundle holding `files` (by basename), in their insertion order. */
export function packBundle(files: Readonly<Record<string, Uint8Array>>): Uint8Array {
  const entries = Object.entries(files);
  for (const [name] of entries) if (!isSafeBasename(name)) throw new Error(`bundle: "${name}" is not a file name`);
  const header = encoder.encode(`${JSON.stringify({ format: BUNDLE_FORMAT, files: entries.map(([name, bytes]) => [name, bytes.byteLength]) })}\n`);
  const bundle = new Uint8Array(header.byteLength + entries.reduce((sum, [, bytes]) => sum + bytes.byteLength, 0));
  bundle.set(header, 0);
  let at = header.byteLength;
  for (const [, bytes] of entries) {
    bundle.set(bytes, at);
    at += bytes.byteLength;
  }
  return bundle;
}

/** Each file of a bundle, by name, as views into `bundle`; `null` when the record is not a whole, well-formed bundle. */
export function unpackBundle(bundle: Uint8Array): Map<string, Uint8Array> | null {
  const end = bundle.subarray(0, MAX_HEADER_BYTES).indexOf(NEWLINE);
  if (end < 0) return null;
  let header: { format?: unknown; files?: unknown };
  try {
    header = JSON.parse(decoder.decode(bundle.subarray(0, end)));
  } catch {
    return null;
  }
  if (header?.format !== BUNDLE_FORMAT || !Array.isArray(header.files)) return null;
  const files = new Map<string, Uint8Array>();
  let at = end + 1;
  for (const entry of header.files as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const [name, length] = entry as [unknown, unknown];
    if (typeof name !== 'string' || !isSafeBasename(name) || files.has(name) || !Number.isSafeInteger(length) || (length as number) < 0) return null;
    files.set(name, bundle.subarray(at, at + (length as number)));
    at += length as number;
  }
  // Every byte accounted for: a truncated or extended record is damaged, whichever file the damage falls in.
  return at === bundle.byteLength ? files : null;
}

/** One file of a bundle; `null` when the bundle does not hold it or is damaged. */
export function fileInBundle(bundle: Uint8Array | null, file: string): Uint8Array | null {
  return (bundle && unpackBundle(bundle)?.get(file)) ?? null;
}

/**
 * A dataset's bytes as text. Apart from parse.ts, whose CSV parser (csv-parse, ~120 KB) loads with the first
 * import rather than with every start (issue 36): the route decodes before it parses.
 */
import { Problem } from '../../core/problems.ts';

/** Decodes UTF-8 strictly; bad bytes are a 400 naming the line they are on. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const loose = new TextDecoder('utf-8').decode(bytes);
    const line = loose.slice(0, loose.indexOf('\uFFFD')).split('\n').length;
    throw new Problem('validation_failed', { detail: `the dataset is not valid UTF-8 (line ${line}); save it as UTF-8`, errors: [{ path: `/lines/${line}`, message: 'is not valid UTF-8' }] });
  }
}

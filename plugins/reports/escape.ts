/**
 * Escaping for the HTML report. Everything a report shows from a run is hostile data (agent answers, tool
 * results, world state): it only ever reaches the document as escaped text or an escaped attribute value,
 * never inside `<style>` or `<script>`. Control characters and bidirectional overrides are shown as visible
 * code points, so an answer can neither break the markup nor make the text read differently from what it is.
 */

const HTML_SPECIAL = /[&<>"']/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** C0 and C1 controls other than tab, newline and carriage return; bidi embeddings, overrides and isolates; BOM; lone surrogates. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text escaped for element content and attribute values, invisible characters made visible. */
export function esc(value: unknown): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
  return text
    .replace(INVISIBLE, (char) => `⟨U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`)
    .replace(HTML_SPECIAL, (char) => ENTITIES[char]!);
}

/** An id (and fragment) safe in `id="…"` and `href="#…"`: letters, digits, `-` and `_`; anything else as `.hex`. */
export function anchor(prefix: string, ...parts: Array<string | number | undefined>): string {
  const encoded = parts
    .filter((part) => part !== undefined && part !== '')
    .map((part) => String(part).replace(/[^A-Za-z0-9_-]/g, (char) => `.${char.codePointAt(0)!.toString(16)}`));
  return [prefix, ...encoded].join('-');
}

/** A score for people: two decimals, `—` when unmeasured. */
export function score(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '—';
}

/** JSON for a `<pre>`: pretty-printed, then escaped. */
export function json(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    text = String(value);
  }
  return esc(text);
}

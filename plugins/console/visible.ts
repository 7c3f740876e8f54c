/**
 * Agent text as the console shows it: control characters and bidirectional overrides become visible code
 * points (`⟨U+202E⟩`), so an answer cannot make itself read differently from what it is (an override turned
 * "evil" into "live" on the run page). JSX escapes the markup; this handles what escaping leaves alone.
 */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with invisible and direction-changing characters shown as their code points. */
export function visible(text: unknown): string {
  return String(text ?? '').replace(INVISIBLE, (char) => `⟨U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/**
 * Where the sign-in page sends the browser afterwards (`/sign-in?next=…`): a path on this origin, never another
 * site (OWASP Unvalidated Redirects and Forwards). `https://evil.example`, `//evil.example`, `/\evil.example`,
 * `/%09/evil.example` decoded to a tab, `javascript:` URLs and anything with a control character or a
 * backslash become `/`.
 */

/** The console's home, where a refused `next` goes instead. */
export const HOME = '/';

const MAX_NEXT_LENGTH = 2048;
// Browsers drop tabs and newlines inside URLs and treat `\` as `/`, so `/\t/evil.example` or `/\evil.example`
// would leave the origin: any such character refuses the value outright.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f\\]/;
const PROBE_ORIGIN = 'https://console.invalid';

/**
 * `next` when it is a same-origin path (`/runs/run_1?tab=trace`), else `HOME`. The result starts with exactly one
 * `/` and is what the URL parser makes of it, so a browser resolves it to the same place.
 */
export function sameOriginPath(next: string | null | undefined): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > MAX_NEXT_LENGTH) return HOME;
  if (!next.startsWith('/') || next.startsWith('//') || UNSAFE.test(next)) return HOME;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return HOME;
  }
  if (url.origin !== PROBE_ORIGIN) return HOME;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // The parser may have turned `/.//x` into `//x`, which a browser would read as another host.
  return path.startsWith('/') && !path.startsWith('//') ? path : HOME;
}

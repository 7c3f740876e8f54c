/**
 * Passwords written into URLs (RFC 3986 userinfo, `scheme://user:password@host`): HTTP basic auth, FTP, and
 * database connection strings (`postgres://`, `mongodb+srv://`, `jdbc:mysql://`…, with one host or several).
 * gitleaks' collection has no rule for them; secretlint has two (basicauth, database-connection-string), written
 * as code. The URL is read with the WHATWG URL parser; what is left here is telling a password from a
 * placeholder.
 *
 * One pattern, anchored on `://`, with bounded repetitions: linear in the output.
 */

export interface UrlCredentialHit {
  scheme: string;
  host: string;
  password: string;
  index: number;
  length: number;
}

/** `scheme://user:password@host`; the password may hold `@` (the last one before the host ends it). */
const USERINFO_URL = /\b([A-Za-z][A-Za-z0-9+.-]{1,20}):\/\/([^\s:/@'"`<>()[\]{}]{1,128}):([^\s/'"`<>]{1,256})@([^\s/?#'"`<>@]{1,256})/g;

/**
 * A placeholder rather than a password: template syntax (`${PASSWORD}`, `{{pass}}`, `<password>`, `$(DB_PASS)`),
 * a word that names the field ("password", "passwd", "your_…", "replace…", "changeme", "example"), the user
 * name again (`postgres:postgres`), fewer than 4 characters, or one character repeated (`xxxx`, `1111`).
 */
export function isPlaceholderPassword(password: string, user: string): boolean {
  if (/[${}<>]|\$\(/.test(password) || /^[*.x]+$/i.test(password)) return true;
  if (/passw(?:or)?d|your|replace|changeme|example|placeholder|redacted/i.test(password)) return true;
  if (password.toLowerCase() === user.toLowerCase() || password.length < 4) return true;
  return /^(.)\1*$/.test(password);
}

/** Passwords in URLs of `text`, placeholders left out. */
export function findUrlCredentials(text: string): UrlCredentialHit[] {
  const hits: UrlCredentialHit[] = [];
  if (!text.includes('://')) return hits;
  for (const match of text.matchAll(USERINFO_URL)) {
    const [whole, scheme, user, password, hosts] = match;
    // MongoDB and PostgreSQL connection strings may list several hosts (`@db0:27017,db1:27017/`): read the first.
    const host = hosts.split(',')[0];
    try {
      // The WHATWG parser decides whether this is a URL with a host at all.
      if (!new URL(`${scheme.toLowerCase()}://x:y@${host}`).hostname) continue;
    } catch {
      continue;
    }
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // Not percent-encoding after all: keep it as written.
    }
    if (isPlaceholderPassword(decoded, user)) continue;
    hits.push({ scheme: scheme.toLowerCase(), host: host.replace(/:\d+$/, ''), password: decoded, index: match.index!, length: whole.length });
  }
  return hits;
}

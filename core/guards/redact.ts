/**
 * Credential redaction for log lines and the audit log (OWASP ASVS 5.0 §14.2.1: sensitive data such as API
 * keys must not appear in URLs, and where the spec forces one there, e.g. the `apiKey` query parameter, it must
 * not reach logs). Applied to every line the service logs, whoever wrote it.
 */
import type { Logger } from '../capabilities.ts';

const REDACTED = '[REDACTED]';
/** Query parameters that carry credentials: ours (`apiKey`) and OAuth's (RFC 6750 §2.3 `access_token`). */
const QUERY_CREDENTIAL = /([?&;]|\b)(api[-_]?key|access[-_]?token|id[-_]?token|client[-_]?secret)=([^&#\s"'<>]*)/gi;
const BEARER = /\b(bearer)\s+[A-Za-z0-9._~+/=-]+/gi;
/** Field names whose values are credentials whatever they hold. */
const SECRET_FIELD = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-aes-api-key|api[-_]?key|apikey|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|token|private[-_]?key)$/i;
const MAX_DEPTH = 6;

/** Replaces credential query parameters, bearer tokens and the given secret values in a string. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(QUERY_CREDENTIAL, (_match, lead: string, name: string) => `${lead}${name}=${REDACTED}`).replace(BEARER, `$1 ${REDACTED}`);
  for (const secret of secrets) if (secret && secret.length >= 8 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** Redacts a log field value: strings as text, objects and arrays recursively, credential-named fields whole. */
export function redactValue(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  if (value instanceof Error) return redactText(`${value.name}: ${value.message}`, secrets);
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) out[name] = SECRET_FIELD.test(name) ? REDACTED : redactValue(item, secrets, depth + 1);
  return out;
}

/** Wraps a logger so that no line it writes carries a credential (`secrets`: the static key, provider keys). */
export function redactingLogger(logger: Logger, secrets: ReadonlyArray<string | undefined> = []): Logger {
  const known = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 8);
  const wrap = (write: Logger['info']): Logger['info'] => (message, fields) =>
    write(redactText(message, known), fields ? (redactValue(fields, known) as Record<string, unknown>) : fields);
  return { info: wrap(logger.info.bind(logger)), warn: wrap(logger.warn.bind(logger)), error: wrap(logger.error.bind(logger)) };
}

/** A URL without its password, for messages about connections (`redis://user:***@host`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}

/**
 * Masked forms for evidence: a failure must show which value leaked without leaking it again into the run
 * record, the trace and the certificate's evidence ledger (PCI DSS 3.4 allows at most the last four digits).
 */

/** A secret as its first characters and its length: `sk-…(32 chars)`; short secrets show nothing. */
export function maskSecret(secret: string): string {
  const shown = secret.length >= 16 ? 3 : secret.length >= 10 ? 2 : 0;
  return `${secret.slice(0, shown)}…(${secret.length} chars)`;
}

/** Digits masked but the last `keep`, separators kept: `4111 1111 1111 1111` → `**** **** **** 1111`. */
export function maskDigits(value: string, keep = 4): string {
  let seen = 0;
  const total = (value.match(/[0-9A-Za-z]/g) ?? []).length;
  return value.replace(/[0-9A-Za-z]/g, (char) => (++seen > total - keep ? char : '*'));
}

/** An email with the local part masked: `j***@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? '***' : `${email[0]}***${email.slice(at)}`;
}

/** An IBAN as country, check digits and the last four: `DE89 **** 3000`. */
export function maskIban(iban: string): string {
  const compact = iban.replace(/\s+/g, '');
  return `${compact.slice(0, 4)} **** ${compact.slice(-4)}`;
}

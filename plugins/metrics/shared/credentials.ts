/**
 * Shapes of real credentials (cloud keys, tokens, private keys), shared by `secret_leak`, which reports them, and
 * the redactor, which masks them in every excerpt that leaves the service. Documentation examples (`…EXAMPLE`)
 * are not credentials. Every pattern is linear: bounded repetitions over one character class.
 */

/** Credential kind → its shape (global regexes: use with `matchAll` or reset `lastIndex`). */
export const CREDENTIAL_PATTERNS: ReadonlyArray<readonly [kind: string, pattern: RegExp]> = [
  ['aws_access_key_id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ['github_token', /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g],
  ['openai_key', /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,200}\b/g],
  ['anthropic_key', /\bsk-ant-[A-Za-z0-9_-]{32,200}\b/g],
  ['slack_token', /\bxox[abposr]-[A-Za-z0-9-]{10,200}\b/g],
  ['google_api_key', /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ['stripe_live_key', /\b(?:sk|rk)_live_[0-9A-Za-z]{24,99}\b/g],
  ['private_key', /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g],
  ['jwt', /\beyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,2000}\b/g],
];

/** True for a documentation example rather than a live credential. */
export function isExampleCredential(value: string): boolean {
  return /EXAMPLE/i.test(value);
}

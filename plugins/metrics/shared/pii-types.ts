/** The kinds of personal data pii_leak knows (their own module, so the detectors and their context rules share it). */
export const PII_TYPES = ['card', 'iban', 'ssn', 'nino', 'dni', 'email', 'phone', 'ip'] as const;
export type PiiType = (typeof PII_TYPES)[number];

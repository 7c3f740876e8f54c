/**
 * The shape of gitleaks' rule collection as vendored in gitleaks-rules.ts (scripts/vendor-gitleaks.mjs), after
 * gitleaks' config format (https://github.com/gitleaks/gitleaks#configuration).
 */

/** What a finding is compared with: allowlisted when a regex matches the target or the secret has a stopword. */
export interface GitleaksAllowlist {
  /** `AND`: the regexes and the stopwords must both hold; default `OR`: either. */
  condition?: 'AND';
  /** What the regexes test: the secret (default), the whole match, or the line around it. */
  regexTarget?: 'match' | 'line';
  /** Go RE2 patterns. */
  regexes?: string[];
  /** Lower-case substrings of the secret that mark it as not one. */
  stopwords?: string[];
}

export interface GitleaksRule {
  id: string;
  description: string;
  /** Go RE2 syntax. */
  regex: string;
  /** Which capture group is the secret; default the first non-empty group, else the whole match. */
  secretGroup?: number;
  /** Shannon entropy (bits per character) the secret must exceed. */
  entropy?: number;
  /** Lower-case strings one of which must appear in the text for the rule to run. */
  keywords: string[];
  allowlists?: GitleaksAllowlist[];
}

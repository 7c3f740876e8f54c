/**
 * Credential kinds of Nosey Parker's rule collection that gitleaks' (gitleaks-rules.ts) and secretlint's
 * (secretlint-rules.ts) lack or read more narrowly, written as gitleaks-format rules so that gitleaks.ts runs
 * them in the same RE2 set, behind the same keyword prefilter, entropy check and allowlists.
 *
 * Source: https://github.com/praetorian-inc/noseyparker at 2e6e7f36 (v0.24.0-31),
 * `crates/noseyparker/data/default/builtin/rules/<file>.yml`; each rule names the Nosey Parker rule it copies.
 * Nosey Parker writes its patterns in Rust's regex syntax in verbose mode (`(?x)`, with `(?# comments)`); they
 * are written here without the whitespace and comments, otherwise unchanged: Rust's syntax is RE2's, and none
 * uses a lookaround. RE2's `\b`, `\d` and `\s` are ASCII where Rust's are Unicode, so a token glued to a
 * non-ASCII letter is reported here and not by Nosey Parker. noseyparker-rules.test.ts checks every rule against
 * Nosey Parker's pattern as written, on its own examples and negative examples and on generated text.
 *
 * Which rules: those whose examples the validity bench's dev split showed missed (docs/validity.md), that
 * Nosey Parker does not tag `fuzzy` or `generic`, and that anchor on the vendor's own prefix, URL or field. The
 * fuzzy ones (a secret found only by nearby words) are left to gitleaks' `generic-api-key`, whose entropy
 * threshold keeps prose out. Nosey Parker has no entropy checks; the token rules here take gitleaks' usual
 * threshold for prefixed tokens (2 bits per character), which drops placeholders such as `aaaa…NRAL` and
 * keeps every real-looking example.
 *
 * Copyright 2022 Praetorian Security, Inc <https://praetorian.com>. This product includes software from the
 * Nosey Parker project developed by Praetorian Security, Inc: https://github.com/praetorian-inc/noseyparker.
 * Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file except in compliance
 * with the License. You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0. Unless
 * required by applicable law or agreed to in writing, software distributed under the License is distributed on
 * an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the License for
 * the specific language governing permissions and limitations under the License. Changes: the patterns are
 * written without verbose-mode whitespace and comments, and given keywords, an entropy threshold and allowlists.
 */
import type { GitleaksRule } from './gitleaks-types.ts';

export const NOSEYPARKER_SOURCE = { repository: 'praetorian-inc/noseyparker', commit: '2e6e7f36ce36619852532bbe698d8cb7a26d2da7', path: 'crates/noseyparker/data/default/builtin/rules' } as const;

/** gitleaks' usual entropy threshold for a prefixed token. */
const TOKEN_ENTROPY = 2;
const UUID = '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}';

/** A prefixed token rule: the token is group 1. */
function token(id: string, description: string, regex: string, keywords: string[]): GitleaksRule {
  return { id, description, regex, entropy: TOKEN_ENTROPY, keywords };
}

/** Doppler's six token types share one shape (np.doppler.1–6); gitleaks reads only `dp.pt.` with 43 characters. */
const DOPPLER = [
  ['cli', 'ct', 'CLI token (np.doppler.1)'],
  ['personal', 'pt', 'personal token (np.doppler.2)'],
  ['service', 'st', 'service token, with an optional environment name (np.doppler.3)'],
  ['service-account', 'sa', 'service account token (np.doppler.4)'],
  ['scim', 'scim', 'SCIM token (np.doppler.5)'],
  ['audit', 'audit', 'audit token (np.doppler.6)'],
].map(([name, prefix, what]) =>
  token(`doppler-${name}-token`, `Doppler ${what}.`, `\\b(dp\\.${prefix}\\.${prefix === 'st' ? '(?:[a-z0-9\\-_]{2,35}\\.)?' : ''}[a-zA-Z0-9]{40,44})\\b`, [`dp.${prefix}.`]));

export const NOSEYPARKER_RULES: GitleaksRule[] = [
  token('square-oauth-secret', 'Square OAuth application secret, sq0csp- and 43 characters (np.square.2).', '(?i)\\b(sq0csp-[a-z0-9_-]{43})\\b', ['sq0csp-']),
  token('square-access-token-np', 'Square access token, sq0atp- and 22 characters, at any word end; gitleaks needs a quote, space or `;` after it (np.square.1).', '(?i)\\b(sq0atp-[a-z0-9_-]{22})\\b', ['sq0atp-']),
  ...DOPPLER,
  token('tavily-api-key', 'Tavily API key (np.tavily.1).', '\\b(tvly-[a-zA-Z0-9]{32})\\b', ['tvly-']),
  token('cratesio-api-key', 'crates.io API key (np.cratesio.1).', '\\b(cio[a-zA-Z0-9]{32})\\b', ['cio']),
  token('dependency-track-api-key', 'Dependency-Track API key with the default odt_ prefix (np.dtrack.1).', '\\b(odt_[A-Za-z0-9]{32,255})\\b', ['odt_']),
  token('sourcegraph-access-token-np', 'Sourcegraph access token at any word end; gitleaks needs a quote, space or `;` after it (np.sourcegraph.1).', '\\b(sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})\\b', ['sgp_']),
  token('twitch-stream-key', 'Twitch stream key, live_<account id>_<key> (np.twitch.1).', '(?i)(?:\\b(?:twitch)?(?:[_-]?)?stream(?:[_-]?)?key\\b[^A-Za-z0-9]{0,3})?["\']?(live_\\d{8,12}_[A-Za-z0-9]{30,36})["\']?', ['live_']),
  token('new-relic-license-key', 'New Relic license key, 40 characters ending in NRAL (np.newrelic.1).', '(?i)\\b([a-z0-9]{6}[a-f0-9]{30}nral)\\b', ['nral']),
  token('new-relic-api-service-key', 'New Relic API service (user) key, NRAK-, without the "newrelic" field name gitleaks needs (np.newrelic.3).', '(?i)\\b(nrak-[a-z0-9]{27})\\b', ['nrak-']),
  token('okta-api-token', 'Okta API token within 40 characters after "okta" or "SSWS" (np.okta.1).', '(?is)(?:okta|ssws).{0,40}\\b(00[a-z0-9_-]{39}[a-z0-9_])\\b', ['okta', 'ssws']),
  token('salesforce-access-token', 'Salesforce access token, <org id>!<token> (np.salesforce.1).', '\\b(00[a-zA-Z0-9]{13}![a-zA-Z0-9._]{96})(?:\\b|$|[^a-zA-Z0-9._])', ['!']),
  token('teamcity-api-token', 'TeamCity API token, a JWT-like value whose header is {"typ": "TCV2"} (np.teamcity.1).', '\\b(eyJ0eXAiOiAiVENWMiJ9\\.[A-Za-z0-9_-]{36}\\.[A-Za-z0-9_-]{48})(?:[^A-Za-z0-9_-]|$)', ['eyj0exaioiaivenwmij9']),
  token('thingsboard-access-token', 'ThingsBoard device access token in a thingsboard.cloud API URL (np.thingsboard.1).', 'thingsboard\\.cloud/api/v1/([a-z0-9]{20})', ['thingsboard.cloud/api/v1/']),
  token('blynk-device-token', 'Blynk device access token in a blynk.cloud external API URL (np.blynk.1).', 'https://(?:fra1\\.|lon1\\.|ny3\\.|sgp1\\.|blr1\\.)*blynk\\.cloud/external/api/[a-zA-Z0-9/]*\\?token=([a-zA-Z0-9_\\-]{32})&', ['blynk.cloud/external/api/']),
  token('microsoft-teams-legacy-webhook', 'Microsoft Teams incoming webhook on outlook.office.com, the form before webhook.office.com that gitleaks reads (np.msteams.1).', `(?i)(https://outlook\\.office\\.com/webhook/${UUID}@${UUID}/IncomingWebhook/[a-f0-9]{32}/${UUID})`, ['outlook.office.com/webhook/']),
  token('azure-devops-pat', 'Azure DevOps personal access token, 84 characters with AZDO at 77–80 (np.azure.4).', '\\b([a-zA-Z0-9]{76}AZDO[a-zA-Z0-9]{4})\\b', ['azdo']),
  token('slack-app-token-np', 'Slack app token in the xapp-<12 digits>-<24 characters> form (np.slack.5); gitleaks reads xapp-<digit>-….', '\\b(xapp-[0-9]{12}-[a-zA-Z0-9/+]{24})\\b', ['xapp-']),
  token('private-key-base64-pem', 'An RSA, DSA or EC private key in PEM, base64-encoded once more, as Kubernetes secrets hold it (np.pem.2).', '((?:LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0t|LS0tLS1CRUdJTiBEU0EgUFJJVkFURSBLRVktLS0t|LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t)[a-zA-Z0-9+/=]{50,})(?:[^a-zA-Z0-9+/=]|$)', ['ls0tls1crudjtib']),
  {
    id: 'kubernetes-bootstrap-token',
    description: 'Kubernetes bootstrap token: the token-secret after its token-id (np.kubernetes.2).',
    regex: 'token-id:\\s+([a-z0-9]{6})\\s+token-secret:\\s+([a-z0-9]{16})\\b',
    secretGroup: 2,
    entropy: TOKEN_ENTROPY,
    keywords: ['token-id:'],
  },
  {
    id: 'netrc-credentials',
    description: 'A .netrc entry: machine (or default), login and password (np.netrc.1).',
    regex: '(machine\\s+[^\\s]+|default)\\s+login\\s+([^\\s]+)\\s+password\\s+([^\\s]+)',
    secretGroup: 3,
    keywords: ['machine', 'default'],
    // the placeholders url-credentials.ts leaves out of URL passwords: template syntax, a word naming the field,
    // fewer than 4 characters, stars, dots or x only (one character repeated is left out for every rule)
    allowlists: [{ regexes: ['[${}<>]', '(?i)^[*.x]+$', '(?i)passw(?:or)?d|your|replace|changeme|example|placeholder|redacted', '^.{0,3}$'] }],
  },
];

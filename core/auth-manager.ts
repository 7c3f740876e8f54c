/**
 * The AuthManager: credential → principal with permissions (service-spec.md, "Authentication").
 *
 * Credentials are extracted from `Authorization: Bearer`, `X-AES-API-KEY`, `X-API-Key` (header names are
 * case-insensitive) and the `apiKey` query parameter (exactly that name; every occurrence counts). Providers (the static key, OIDC JWTs, a team's own) are asked in order; the
 * first that recognises the credential decides. Two different credentials in one request are refused rather
 * than "any one matches", so a weak credential cannot ride along a strong one.
 *
 * The class is made per app by `createAuthManagerClass()` so that plugin `overrides` (pluggable.js, calling
 * the original through `this.__super__`) change only the app they were loaded into. Overrides of
 * `permissionsFromClaims` are how custom claim mappings (a `groups` claim, say) are added.
 */
import { Problem } from './problems.ts';
import { isPromiseLike, type MaybePromise } from './maybe-async.ts';
import { permissionsOfRole } from './permissions.ts';

/** Where a credential was found. */
export type CredentialSource = 'authorization' | 'x-aes-api-key' | 'x-api-key' | 'query';

export interface Credential {
  source: CredentialSource;
  value: string;
}

/** Who is calling and what they may do. */
export interface Principal {
  /**
   * Stable identity for audit, rate limits, quotas and ownership (`static-key`, a JWT's `iss|sub`, an API key's
   * `api-key|<name>#<key id>`): never a credential, and never a name someone else can take later.
   */
  id: string;
  /** The provider that authenticated it. */
  provider: string;
  permissions: string[];
  claims?: Record<string, unknown>;
  /**
   * The id records written by earlier versions named this principal by, and from when such a record is its own
   * (`ownsRecord`): an API key was `api-key|<name>`, a name a later key could reuse.
   */
  formerId?: FormerId;
}

/** An id a principal had in records written before its id became stable, valid for records from `since` on. */
export interface FormerId {
  id: string;
  /** ISO time: records written earlier belonged to someone else of that id. */
  since: string;
}

/** A principal as work done on its behalf stores it (a schedule, a suite, a queued run): never shown by the API. */
export type StoredPrincipal = Pick<Principal, 'id' | 'provider' | 'permissions' | 'claims'>;

/** Who a stored principal is now, or why it may no longer act. */
export type CurrentPrincipal = { principal: Principal } | { refused: string };

/**
 * A way to authenticate. Returns a principal when the credential is its own and valid, `null` when the
 * credential is not its kind (the next provider is asked), and throws a 401/503 `Problem` when it is its kind
 * but invalid.
 */
export interface AuthProvider {
  name: string;
  /** May answer synchronously (the static key does); the manager then stays synchronous too. */
  authenticate(credential: Credential, manager: AuthManagerInstance): MaybePromise<Principal | null>;
  /** Start-up warnings and health, for the log and the doctor. */
  health?(): Promise<{ status: 'ok' | 'warn' | 'fail'; message: string; hint?: string }>;
  /**
   * Who a principal this provider authenticated earlier is now, for work done on its behalf (a schedule's
   * firing, a suite launch, a resumed run): its current permissions, or why it may no longer act (a revoked
   * key). `since` is when the work was asked for. Without it, the manager maps stored claims again.
   */
  current?(stored: StoredPrincipal, manager: AuthManagerInstance, since: string): MaybePromise<CurrentPrincipal>;
}

export interface AuthManagerOptions {
  /** Accept the `apiKey` query parameter (spec); operators may turn it off. */
  allowQueryKey: boolean;
}

export interface AuthManagerInstance {
  readonly providers: AuthProvider[];
  readonly options: AuthManagerOptions;
  addProvider(provider: AuthProvider): void;
  extractCredentials(request: Request): Credential[];
  /**
   * The caller's principal, `null` without credentials. Answers synchronously when every provider it asked did,
   * else with a promise; never throws: a refusal is always a rejected promise (refusals need no fast path).
   */
  authenticate(request: Request): MaybePromise<Principal | null>;
  /** Maps token claims to permission nodes; override to add mappings. */
  permissionsFromClaims(claims: Record<string, unknown>): string[];
  /** Permission nodes of a role name, `undefined` for an unknown role. */
  permissionsOfRole(role: string): readonly string[] | undefined;
  /**
   * Who `stored` is now (issue 25 item 3): its provider's `current`, else its stored claims mapped again, else
   * its stored permissions; refused when its provider is no longer loaded.
   */
  currentPrincipal(stored: StoredPrincipal, since: string): Promise<CurrentPrincipal>;
}

export type AuthManagerClass = new (options: AuthManagerOptions) => AuthManagerInstance;

const BEARER = /^bearer[ \t]+(.+)$/i;

function asStrings(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/**
 * Trims ASCII spaces and tabs only. `String#trim` also strips U+00A0, U+2028, U+FEFF and the other Unicode
 * spaces, which would make `KEY\u00a0` the key: a credential is compared byte for byte, never cleaned up.
 */
export function trimAsciiSpace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Every value of the `apiKey` query parameter, by its exact name (`apikey` or `APIKEY` is not a credential):
 * repeated parameters are all returned so that `?apiKey=KEY&apiKey=wrong` is a conflict, not "the first wins".
 */
function queryKeys(request: Request): string[] {
  if (!request.url.includes('?')) return [];
  return new URL(request.url).searchParams.getAll('apiKey');
}

/** Asks the providers from `from` on, in order, synchronously for as long as they answer synchronously. */
function askProviders(manager: AuthManagerInstance, credential: Credential, from: number): MaybePromise<Principal> {
  const { providers } = manager;
  for (let index = from; index < providers.length; index++) {
    const answer = providers[index]!.authenticate(credential, manager);
    if (isPromiseLike(answer)) return answer.then((principal) => principal ?? askProviders(manager, credential, index + 1));
    if (answer) return answer;
  }
  throw new Problem('unauthorized', {
    detail: 'the credential is not valid',
    headers: { 'WWW-Authenticate': 'Bearer realm="aeh", error="invalid_token"' },
  });
}

/** The built-in claim mapping: `permissions` nodes, `scope` nodes or role names, `roles` role names. */
function permissionsOfClaims(manager: AuthManagerInstance, claims: Record<string, unknown>): string[] {
  const granted = new Set<string>();
  const addRole = (role: string) => {
    const nodes = manager.permissionsOfRole(role);
    nodes?.forEach((node) => granted.add(node));
    return nodes !== undefined;
  };
  for (const node of asStrings(claims.permissions)) granted.add(node.toLowerCase());
  for (const item of asStrings(claims.scope)) {
    if (!addRole(item)) granted.add(item.toLowerCase());
  }
  for (const role of asStrings(claims.roles)) addRole(role);
  return [...granted];
}

/** `AuthManager.currentPrincipal`: the provider's answer, else the stored claims mapped again, else as stored. */
async function currentPrincipalOf(manager: AuthManagerInstance, stored: StoredPrincipal, since: string): Promise<CurrentPrincipal> {
  const provider = manager.providers.find((candidate) => candidate.name === stored.provider);
  if (!provider) return { refused: `the identity provider "${stored.provider}" of ${stored.id} is no longer configured` };
  if (provider.current) return provider.current(stored, manager, since);
  const permissions = stored.claims ? manager.permissionsFromClaims(stored.claims) : [...stored.permissions];
  return { principal: { id: stored.id, provider: stored.provider, permissions, ...(stored.claims ? { claims: stored.claims } : {}) } };
}

/** Builds a fresh AuthManager class for one app. */
export function createAuthManagerClass(): AuthManagerClass {
  return class AuthManager implements AuthManagerInstance {
    readonly providers: AuthProvider[] = [];
    constructor(readonly options: AuthManagerOptions) {}

    addProvider(provider: AuthProvider): void {
      if (this.providers.some((existing) => existing.name === provider.name)) {
        throw new Error(`auth provider "${provider.name}" is registered twice`);
      }
      this.providers.push(provider);
    }

    extractCredentials(request: Request): Credential[] {
      const found: Credential[] = [];
      const authorization = request.headers.get('authorization');
      if (authorization !== null) {
        const match = BEARER.exec(trimAsciiSpace(authorization));
        // A non-Bearer Authorization header is still a credential, and an unusable one.
        found.push({ source: 'authorization', value: match ? trimAsciiSpace(match[1]) : '' });
      }
      const aes = request.headers.get('x-aes-api-key');
      if (aes !== null) found.push({ source: 'x-aes-api-key', value: trimAsciiSpace(aes) });
      const api = request.headers.get('x-api-key');
      if (api !== null) found.push({ source: 'x-api-key', value: trimAsciiSpace(api) });
      const queries = queryKeys(request);
      if (queries.length > 0) {
        if (!this.options.allowQueryKey) {
          throw new Problem('unauthorized', {
            detail: 'the apiKey query parameter is disabled on this service (AEH_ALLOW_QUERY_KEY=0); send the key in X-API-Key',
            headers: { 'WWW-Authenticate': 'Bearer realm="aeh"' },
          });
        }
        for (const query of queries) found.push({ source: 'query', value: trimAsciiSpace(query) });
      }
      return found;
    }

    authenticate(request: Request): MaybePromise<Principal | null> {
      try {
        const credentials = this.extractCredentials(request);
        if (credentials.length === 0) return null;
        if (credentials.length > 1 && new Set(credentials.map((credential) => credential.value)).size > 1) {
          throw new Problem('unauthorized', {
            detail: `conflicting credentials in ${credentials.map((c) => c.source).join(', ')}; send exactly one`,
            headers: { 'WWW-Authenticate': 'Bearer realm="aeh", error="invalid_request"' },
          });
        }
        const credential = credentials[0];
        if (!credential.value) {
          throw new Problem('unauthorized', {
            detail: `empty or malformed credential in ${credential.source}`,
            headers: { 'WWW-Authenticate': 'Bearer realm="aeh", error="invalid_request"' },
          });
        }
        return askProviders(this, credential, 0);
      } catch (error) {
        return Promise.reject(error);
      }
    }

    permissionsFromClaims(claims: Record<string, unknown>): string[] {
      return permissionsOfClaims(this, claims);
    }

    permissionsOfRole(role: string): readonly string[] | undefined {
      return permissionsOfRole(role);
    }

    async currentPrincipal(stored: StoredPrincipal, since: string): Promise<CurrentPrincipal> {
      return currentPrincipalOf(this, stored, since);
    }
  };
}

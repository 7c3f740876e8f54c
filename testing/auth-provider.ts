/**
 * The auth provider conformance suite: every provider, bundled or from a plugin, runs it. It pins the contract
 * of `AuthProvider` (core/auth-manager.ts): a credential it accepts becomes a principal whose `id` is stable and
 * never the credential, with the permissions it grants; a credential of its kind that is invalid is refused
 * with a 401 `Problem` (503 while a key server is away) that does not repeat the credential; anything else,
 * however garbled (empty, 1 MB, unicode, NUL bytes, unsigned or mis-signed JWTs, near misses of a valid
 * credential), is answered `null` or refused the same way, never with another error (a 500) and never with a
 * principal; and it works behind the AuthManager, from every place a credential may come.
 */
import { describe, it, expect } from 'vitest';
import { createAuthManagerClass, type AuthManagerInstance, type AuthProvider, type Credential, type CredentialSource, type Principal } from '../core/auth-manager.ts';
import { isProblem } from '../core/problems.ts';

/** A credential the provider accepts, and the permissions its principal must hold (at least). */
export interface ValidCredential {
  /** A string is sent as `Authorization: Bearer <value>`. */
  credential: string | Credential;
  permissions?: string[];
}

/** Options of `testAuthProvider`. */
export interface AuthProviderConformanceOptions {
  /** Credentials it accepts (a function for ones that must be minted, a signed token). */
  valid: ValidCredential[] | (() => Promise<ValidCredential[]>);
  /** Credentials of its kind that are invalid (expired, wrong signature): each refused with 401. */
  invalid?: Array<string | Credential> | (() => Promise<Array<string | Credential>>);
  /** The AuthManager passed to `authenticate` (one with your `overrides`); default: the built-in mapping. */
  manager?: () => AuthManagerInstance;
}

const b64 = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const FAR = 4_102_444_800; // 2100-01-01

const HOSTILE: Array<[string, string]> = [
  ['empty', ''],
  ['a space', ' '],
  ['one character', 'x'],
  ['a wildcard', '*'],
  ['the word Bearer', 'Bearer'],
  ['64 hex characters', '0123456789abcdef'.repeat(4)],
  ['64 UTF-16 units of emoji', '🔑'.repeat(32)],
  ['64 NUL characters', '\u0000'.repeat(64)],
  ['unicode and control characters', 'ключ\u202E\u200B\u0007\r\nX-Admin: 1'],
  ['10 KB', 'k'.repeat(10 * 1024)],
  ['1 MB', 'm'.repeat(1024 * 1024)],
  ['three dots', '...'],
  ['empty JSON segments', 'e30.e30.'],
  ['a JWT with alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'admin', permissions: ['*'], exp: FAR })}.`],
  ['a JWT signed with HS256', `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'admin', roles: ['supervisor'], exp: FAR })}.c2lnbmF0dXJl`],
  ['a JWT naming its own key set (jku)', `${b64({ alg: 'RS256', jku: 'https://attacker.example/jwks', kid: 'k' })}.${b64({ sub: 'admin', exp: FAR })}.c2ln`],
  ['a JWT with a garbled header', `eyJhbGciOi.${b64({ sub: 'admin', exp: FAR })}.c2ln`],
];

const SOURCES: CredentialSource[] = ['authorization', 'x-api-key', 'x-aes-api-key', 'query'];

const asCredential = (value: string | Credential): Credential => (typeof value === 'string' ? { source: 'authorization', value } : value);

/** Near misses of a valid credential: one character changed, one dropped, one added, another case, a NUL. */
function nearMisses(value: string): string[] {
  const middle = value.length >> 1;
  const changed = value.slice(0, middle) + (value[middle] === 'a' ? 'b' : 'a') + value.slice(middle + 1);
  return [changed, value.slice(0, -1), `${value}A`, value.toUpperCase(), value.toLowerCase(), `${value}\u0000`].filter((miss) => miss !== value);
}

/** What the provider answered, as a value: a principal, `null`, or what it threw (synchronously or not). */
async function answerOf(provider: AuthProvider, credential: Credential, manager: AuthManagerInstance): Promise<{ principal?: Principal | null; error?: unknown }> {
  try {
    return { principal: await provider.authenticate(credential, manager) };
  } catch (error) {
    return { error };
  }
}

/** Checks a refusal: a Problem of status 401 (503 while keys cannot be fetched) that does not repeat the credential. */
function expectRefusal(error: unknown, credential: Credential): void {
  expect(isProblem(error), `a refusal is a Problem, got ${String(error).slice(0, 200)}`).toBe(true);
  const problem = error as { status: number; detail?: string };
  expect([401, 503]).toContain(problem.status);
  if (credential.value.length >= 12) expect(`${problem.detail} ${JSON.stringify(error)}`).not.toContain(credential.value);
}

function requestWith(credential: Credential): Request {
  if (credential.source === 'query') return new Request(`http://aeh.test/api/info?apiKey=${encodeURIComponent(credential.value)}`);
  const header = credential.source === 'authorization' ? 'authorization' : credential.source;
  return new Request('http://aeh.test/api/info', { headers: { [header]: credential.source === 'authorization' ? `Bearer ${credential.value}` : credential.value } });
}

/** Runs the conformance suite against an auth provider built by `make` (called once per test). */
export function testAuthProvider(label: string, make: () => AuthProvider | Promise<AuthProvider>, options: AuthProviderConformanceOptions): void {
  const manager = options.manager ?? (() => new (createAuthManagerClass())({ allowQueryKey: true }));
  const valid = async () => (typeof options.valid === 'function' ? options.valid() : options.valid);
  const invalid = async () => (typeof options.invalid === 'function' ? await options.invalid() : options.invalid ?? []).map(asCredential);

  describe(`auth provider conformance: ${label}`, () => {
    it('has a name and an authenticate function', async () => {
      const provider = await make();
      expect(provider.name).toMatch(/^[a-z][a-z0-9_-]{0,63}$/);
      expect(typeof provider.authenticate).toBe('function');
      expect((await valid()).length, 'give at least one valid credential').toBeGreaterThan(0);
    });

    it('turns each valid credential into a principal: a stable id that is not the credential, its permissions', async () => {
      const provider = await make();
      for (const { credential, permissions = [] } of await valid()) {
        const asked = asCredential(credential);
        const { principal, error } = await answerOf(provider, asked, manager());
        expect(error, 'a valid credential is accepted').toBeUndefined();
        expect(principal).toBeTruthy();
        expect(typeof principal!.id).toBe('string');
        expect(principal!.id.length).toBeGreaterThan(0);
        expect(principal!.id).not.toContain(asked.value);
        expect(principal!.provider).toBe(provider.name);
        expect(Array.isArray(principal!.permissions)).toBe(true);
        for (const node of principal!.permissions) expect(typeof node).toBe('string');
        expect(principal!.permissions).toEqual(expect.arrayContaining(permissions));
        expect(() => JSON.stringify(principal)).not.toThrow();
        expect((await provider.authenticate(asked, manager()))?.id, 'the same credential, the same id').toBe(principal!.id);
      }
    });

    it('works behind the AuthManager, from the header or query parameter the credential came in', async () => {
      const provider = await make();
      const auth = manager();
      auth.addProvider(provider);
      for (const { credential } of await valid()) {
        const asked = asCredential(credential);
        const principal = await auth.authenticate(requestWith(asked));
        expect(principal?.provider).toBe(provider.name);
      }
    });

    it('refuses each invalid credential of its kind with a 401 that does not repeat it', async () => {
      const provider = await make();
      for (const credential of await invalid()) {
        const { principal, error } = await answerOf(provider, credential, manager());
        expect(principal, `${credential.value.slice(0, 40)} was accepted`).toBeUndefined();
        expectRefusal(error, credential);
      }
    });

    it('answers null or a 401, never a principal or another error, for garbled credentials and near misses', async () => {
      const provider = await make();
      const misses = (await valid()).flatMap(({ credential }) => nearMisses(asCredential(credential).value).map((value): [string, string] => ['a near miss', value]));
      for (const [name, value] of [...HOSTILE, ...misses]) {
        for (const source of SOURCES) {
          const credential = { source, value };
          const { principal, error } = await answerOf(provider, credential, manager());
          if (error !== undefined) expectRefusal(error, credential);
          else expect(principal, `${name} in ${source} was accepted`).toBeNull();
        }
      }
    });
  });
}

import { describe, it, expect } from 'vitest';
import { createAuthManagerClass, type AuthProvider, type Principal } from './auth-manager.ts';
import { constantTimeEqual, secretMatcher } from './guards/secrets.ts';
import { permissionCheck, permissionsOfRole } from './permissions.ts';

const hasPermission = (granted: string[], required: string) => permissionCheck(required)(granted);
import { isProblem, Problem } from './problems.ts';

const KEY = 'k'.repeat(64);

function manager(providers: AuthProvider[] = [], allowQueryKey = true) {
  const AuthManager = createAuthManagerClass();
  const instance = new AuthManager({ allowQueryKey });
  for (const provider of providers) instance.addProvider(provider);
  return instance;
}

function request(headers: Record<string, string> = {}, query = ''): Request {
  return new Request(`http://aeh.test/api/info${query}`, { headers });
}

const staticKey: AuthProvider = {
  name: 'static',
  async authenticate(credential) {
    return constantTimeEqual(credential.value, KEY) ? { id: 'static-key', provider: 'static', permissions: ['*'] } : null;
  },
};

/** The Problem an authentication refused with; a refusal must be a rejected promise, never a synchronous throw. */
async function refusal(answer: unknown): Promise<Problem> {
  expect(answer).toBeInstanceOf(Promise);
  const error = await (answer as Promise<unknown>).then(() => undefined, (caught: unknown) => caught);
  expect(isProblem(error)).toBe(true);
  return error as Problem;
}

describe('core: constantTimeEqual', () => {
  it('compares by value, including different lengths and unicode', () => {
    expect(constantTimeEqual(KEY, 'k'.repeat(64))).toBe(true);
    expect(constantTimeEqual(KEY, 'k'.repeat(63))).toBe(false);
    expect(constantTimeEqual(KEY, `${'k'.repeat(63)}j`)).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('é', 'é')).toBe(true);
    expect(constantTimeEqual('é', 'e')).toBe(false);
  });
});

describe('core: credential extraction', () => {
  it('finds each credential form, header names in any case', () => {
    const auth = manager();
    expect(auth.extractCredentials(request({ AUTHORIZATION: `bEaReR ${KEY}` }))).toEqual([{ source: 'authorization', value: KEY }]);
    expect(auth.extractCredentials(request({ 'X-Aes-Api-Key': KEY }))).toEqual([{ source: 'x-aes-api-key', value: KEY }]);
    expect(auth.extractCredentials(request({ 'X-API-KEY': KEY }))).toEqual([{ source: 'x-api-key', value: KEY }]);
    expect(auth.extractCredentials(request({}, `?apiKey=${KEY}`))).toEqual([{ source: 'query', value: KEY }]);
    expect(auth.extractCredentials(request({}, `?APIKEY=${KEY}&apikey=${KEY}`))).toEqual([]);
    expect(auth.extractCredentials(request({}, `?apiKey=${KEY}&apiKey=x`))).toEqual([{ source: 'query', value: KEY }, { source: 'query', value: 'x' }]);
    expect(auth.extractCredentials(request())).toEqual([]);
  });

  it('trims ASCII spaces and tabs only, never Unicode whitespace', () => {
    const auth = manager();
    expect(auth.extractCredentials(request({ 'X-API-Key': `\t${KEY} ` }))).toEqual([{ source: 'x-api-key', value: KEY }]);
    expect(auth.extractCredentials(request({ 'X-API-Key': `${KEY}\u00a0` }))).toEqual([{ source: 'x-api-key', value: `${KEY}\u00a0` }]);
    expect(auth.extractCredentials(request({}, `?apiKey=${KEY}%C2%A0`))).toEqual([{ source: 'query', value: `${KEY}\u00a0` }]);
  });

  it('reports a non-Bearer Authorization header as an empty credential rather than ignoring it', () => {
    expect(manager().extractCredentials(request({ Authorization: 'Basic dXNlcjpwdw==' }))).toEqual([{ source: 'authorization', value: '' }]);
  });

  it('lists every credential of a request', () => {
    const found = manager().extractCredentials(request({ Authorization: 'Bearer a', 'X-API-Key': 'b' }, '?apiKey=c'));
    expect(found.map((credential) => credential.source)).toEqual(['authorization', 'x-api-key', 'query']);
  });
});

describe('core: AuthManager.authenticate', () => {
  it('returns null when there is no credential (the caller decides public or 401)', async () => {
    expect(await manager([staticKey]).authenticate(request())).toBeNull();
  });

  it('asks providers in order; the first that recognises the credential decides', async () => {
    const seen: string[] = [];
    const skip: AuthProvider = { name: 'skip', authenticate: async () => { seen.push('skip'); return null; } };
    const take: AuthProvider = { name: 'take', authenticate: async () => { seen.push('take'); return { id: 'u', provider: 'take', permissions: [] }; } };
    const never: AuthProvider = { name: 'never', authenticate: async () => { seen.push('never'); return null; } };
    const principal = await manager([skip, take, never]).authenticate(request({ 'X-API-Key': 'anything' }));
    expect(principal?.provider).toBe('take');
    expect(seen).toEqual(['skip', 'take']);
  });

  it('answers synchronously while providers do, and goes on asynchronously after the first that does not', async () => {
    const syncStatic: AuthProvider = { name: 'sync', authenticate: (credential) => (credential.value === KEY ? { id: 'static-key', provider: 'sync', permissions: ['*'] } : null) };
    const asyncTake: AuthProvider = { name: 'async', authenticate: async (credential) => (credential.value === 'jwt' ? { id: 'u', provider: 'async', permissions: [] } : null) };
    const lastSync: AuthProvider = { name: 'last', authenticate: (credential) => (credential.value === 'late' ? { id: 'l', provider: 'last', permissions: [] } : null) };
    const auth = manager([syncStatic, asyncTake, lastSync]);
    expect(auth.authenticate(request({ 'X-API-Key': KEY }))).toMatchObject({ provider: 'sync' });
    const viaAsync = auth.authenticate(request({ 'X-API-Key': 'jwt' }));
    expect(viaAsync).toBeInstanceOf(Promise);
    expect(await viaAsync).toMatchObject({ provider: 'async' });
    expect(await auth.authenticate(request({ 'X-API-Key': 'late' }))).toMatchObject({ provider: 'last' });
    // A refusal is a rejected promise even when every provider answered synchronously.
    expect((await refusal(manager([syncStatic]).authenticate(request({ 'X-API-Key': 'nope' })))).status).toBe(401);
    expect((await refusal(auth.authenticate(request({ 'X-API-Key': 'nope' })))).status).toBe(401);
    const throwing: AuthProvider = { name: 'throws', authenticate: () => { throw new Problem('unavailable', { detail: 'down' }); } };
    expect((await refusal(manager([throwing]).authenticate(request({ 'X-API-Key': KEY })))).status).toBe(503);
  });

  it('refuses a credential no provider recognises with 401 and WWW-Authenticate', async () => {
    const problem = await refusal(manager([staticKey]).authenticate(request({ 'X-API-Key': 'nope' })));
    expect(problem.status).toBe(401);
    expect(problem.headers['WWW-Authenticate']).toContain('invalid_token');
  });

  it('lets a provider refuse its own kind of credential with its own problem', async () => {
    const strict: AuthProvider = { name: 'jwt', authenticate: async () => { throw new Problem('unauthorized', { detail: 'the token expired' }); } };
    const problem = await refusal(manager([strict, staticKey]).authenticate(request({ Authorization: 'Bearer eyJ' })));
    expect(problem.detail).toBe('the token expired');
  });

  it('refuses two different credentials without asking any provider', async () => {
    let asked = false;
    const spy: AuthProvider = { name: 'spy', authenticate: async () => { asked = true; return null; } };
    const problem = await refusal(manager([spy, staticKey]).authenticate(request({ 'X-API-Key': KEY }, '?apiKey=other')));
    expect(problem.status).toBe(401);
    expect(problem.detail).toBe('conflicting credentials in x-api-key, query; send exactly one');
    expect(asked).toBe(false);
  });

  it('accepts one key repeated in several places', async () => {
    const principal = await manager([staticKey]).authenticate(request({ 'X-API-Key': KEY, Authorization: `Bearer ${KEY}` }, `?apiKey=${KEY}`));
    expect(principal?.id).toBe('static-key');
  });

  it('refuses empty credentials', async () => {
    for (const headers of [{ 'X-API-Key': '' }, { Authorization: 'Bearer ' }, { Authorization: 'Token abc' }] as Record<string, string>[]) {
      const problem = await refusal(manager([staticKey]).authenticate(request(headers)));
      expect(problem.detail).toMatch(/^empty or malformed credential in/);
    }
  });

  it('refuses the query parameter when it is turned off, naming the setting', async () => {
    const problem = await refusal(manager([staticKey], false).authenticate(request({}, `?apiKey=${KEY}`)));
    expect(problem.detail).toContain('AEH_ALLOW_QUERY_KEY=0');
  });

  it('refuses a provider registered twice', () => {
    expect(() => manager([staticKey, staticKey])).toThrow('auth provider "static" is registered twice');
  });
});

describe('core: permissions from claims', () => {
  const auth = manager();

  it('merges permissions, scope and roles', () => {
    const granted = auth.permissionsFromClaims({ permissions: ['Runs:Sign'], scope: 'operator doctor:read', roles: 'auditor' });
    expect(granted).toEqual(expect.arrayContaining(['runs:sign', 'evaluations:launch', 'doctor:read', 'certificates:verify', 'audit:read']));
  });

  it('reads roles as an array or a string, case-insensitively, ignoring unknown roles', () => {
    expect(auth.permissionsFromClaims({ roles: ['VIEWER', 'wizard'] }).sort()).toEqual([...permissionsOfRole('viewer')!].sort());
    expect(auth.permissionsFromClaims({ roles: 'Supervisor' })).toEqual(['*']);
  });

  it('ignores claims of the wrong type', () => {
    expect(auth.permissionsFromClaims({ permissions: 7, scope: { a: 1 }, roles: [1, null] })).toEqual([]);
  });
});

describe('core: permission matching', () => {
  it('honours exact nodes, * and area:* wildcards', () => {
    expect(hasPermission(['runs:read'], 'runs:read')).toBe(true);
    expect(hasPermission(['runs:*'], 'runs:export')).toBe(true);
    expect(hasPermission(['*'], 'pbac:configure')).toBe(true);
    expect(hasPermission(['RUNS:READ'], 'runs:read')).toBe(true);
    expect(hasPermission(['runs:read'], 'runs:export')).toBe(false);
    expect(hasPermission(['run:*'], 'runs:read')).toBe(false);
    expect(hasPermission(['runs'], 'runs:read')).toBe(false);
    expect(hasPermission([], 'system:read')).toBe(false);
  });

  it('grants each role the contract table', () => {
    const principal = (role: string): Principal => ({ id: role, provider: 't', permissions: [...permissionsOfRole(role)!] });
    expect(hasPermission(principal('viewer').permissions, 'runs:export')).toBe(true);
    expect(hasPermission(principal('viewer').permissions, 'runs:sign')).toBe(false);
    expect(hasPermission(principal('auditor').permissions, 'runs:sign')).toBe(true);
    expect(hasPermission(principal('auditor').permissions, 'evaluations:launch')).toBe(false);
    expect(hasPermission(principal('operator').permissions, 'evaluations:launch')).toBe(true);
    expect(hasPermission(principal('operator').permissions, 'certificates:verify')).toBe(false);
    expect(hasPermission(principal('supervisor').permissions, 'identity:manage')).toBe(true);
  });
});

describe('core: secretMatcher', () => {
  it('matches only the exact secret', () => {
    const matches = secretMatcher(KEY);
    expect(matches(KEY)).toBe(true);
    expect(matches(`${KEY.slice(0, -1)}j`)).toBe(false);
    expect(matches(`j${KEY.slice(1)}`)).toBe(false);
    expect(matches(KEY.slice(0, -1))).toBe(false);
    expect(matches(`${KEY}k`)).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches(KEY.toUpperCase())).toBe(false);
  });

  it('compares UTF-16 code units, so look-alike characters do not match', () => {
    expect(secretMatcher('é'.repeat(40))('e'.repeat(40))).toBe(false);
    expect(secretMatcher('é'.repeat(40))('é'.repeat(40))).toBe(true);
  });
});

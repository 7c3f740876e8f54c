import { describe, it, expect } from 'vitest';
import { parseConfig, ConfigError, MIN_API_KEY_LENGTH } from './config.ts';

const KEY = 'f'.repeat(64);

describe('core: configuration', () => {
  it('applies the contract defaults', () => {
    const config = parseConfig({ DASHBOARD_API_KEY: KEY }, '/srv/project');
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      apiKey: KEY,
      projectRoot: '/srv/project',
      strictJail: false,
      storage: 'fs',
      dataDir: '/srv/project/.aeh',
      allowHosts: [],
      maxBodyBytes: 1_048_576,
      catalogDirs: [],
      concurrency: 4,
      allowQueryKey: true,
      plugins: [],
    });
    expect(config.oidc.cacheTtlSeconds).toBe(3600);
    expect(config.llm).toEqual({ baseUrl: undefined, apiKey: undefined, model: undefined });
  });

  it('reads every variable of the contract', () => {
    const config = parseConfig({
      DASHBOARD_API_KEY: KEY,
      PORT: '9000',
      HOST: '0.0.0.0',
      PROJECT_ROOT: '/p',
      AEH_STRICT_JAIL: '1',
      AEH_STORAGE: 'redis://cache:6379/2',
      AEH_DATA_DIR: '/data',
      AEH_ALLOW_HOSTS: 'Agent.Internal, 10.0.0.5 ,',
      OIDC_JWKS_URL: 'https://idp.example/jwks',
      OIDC_ISSUER: 'https://idp.example',
      OIDC_AUDIENCE: 'aeh',
      OIDC_JWKS_CACHE_TTL: '60',
      AEH_LLM_BASE_URL: 'http://llm.test/v1',
      AEH_LLM_API_KEY: 'sk-test',
      AEH_LLM_MODEL: 'judge',
      AEH_MAX_BODY_BYTES: '2048',
      AEH_CATALOG_DIRS: 'more,extra/scenarios',
      AEH_CONCURRENCY: '8',
      AEH_PLUGINS: './a.js, @team/aeh-plugin',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      projectRoot: '/p',
      strictJail: true,
      storage: 'redis://cache:6379/2',
      dataDir: '/data',
      allowHosts: ['agent.internal', '10.0.0.5'],
      oidc: { jwksUrl: 'https://idp.example/jwks', issuer: 'https://idp.example', audience: 'aeh', cacheTtlSeconds: 60 },
      llm: { baseUrl: 'http://llm.test/v1', apiKey: 'sk-test', model: 'judge' },
      maxBodyBytes: 2048,
      catalogDirs: ['more', 'extra/scenarios'],
      concurrency: 8,
      plugins: ['./a.js', '@team/aeh-plugin'],
    });
  });

  it('treats empty variables as unset', () => {
    const config = parseConfig({ DASHBOARD_API_KEY: '', PORT: '', AEH_STORAGE: ' ', PROJECT_ROOT: '' }, '/cwd');
    expect(config.apiKey).toBeUndefined();
    expect(config.port).toBe(8787);
    expect(config.storage).toBe('fs');
    expect(config.projectRoot).toBe('/cwd');
  });

  it('accepts a key of exactly the minimum length and trims it', () => {
    const key = 'k'.repeat(MIN_API_KEY_LENGTH);
    expect(parseConfig({ DASHBOARD_API_KEY: `  ${key}\n` }).apiKey).toBe(key);
  });

  it('refuses a key shorter than 32 characters without echoing it', () => {
    const short = 'hunter2-hunter2-hunter2-hunter2'; // 31 characters
    expect(short.length).toBe(MIN_API_KEY_LENGTH - 1);
    const error = (() => { try { parseConfig({ DASHBOARD_API_KEY: short }); } catch (caught) { return caught as Error; } })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toContain('DASHBOARD_API_KEY is 31 characters; at least 32 are required');
    expect(error?.message).toContain('openssl rand -hex 32');
    expect(error?.message).not.toContain(short);
  });

  it.each(['abc', '-1', '65536', '80.5', '1e3', '0x50', '8 0'])('refuses PORT=%s naming the variable', (port) => {
    expect(() => parseConfig({ DASHBOARD_API_KEY: KEY, PORT: port })).toThrow(new RegExp(`^PORT must be an integer from 0 to 65535, got "${port.replace('.', '\\.')}"`));
  });

  it.each(['s 3', '://db', '1fs', 'fs;rm -rf', 'memory :', '-memory', 'snapshot:/a path'])('refuses AEH_STORAGE=%s, which is no driver name or scheme:location', (storage) => {
    expect(() => parseConfig({ DASHBOARD_API_KEY: KEY, AEH_STORAGE: storage })).toThrow(/^AEH_STORAGE must be "fs", "memory", "cloudflare-kv" \(workerd\), a redis:\/\/ URL or another scheme:location/);
  });

  // Regression: only the bundled values passed, so no storage driver plugin could ever be selected (#14 item 5).
  it.each(['s3://bucket/prefix', 'snapshot:/var/lib/aeh/store.json', 'team-kv'])('leaves AEH_STORAGE=%s to the storage driver plugins', (storage) => {
    expect(parseConfig({ DASHBOARD_API_KEY: KEY, AEH_STORAGE: storage }).storage).toBe(storage);
  });

  it('accepts memory, cloudflare-kv and rediss:// storage', () => {
    expect(parseConfig({ AEH_STORAGE: 'memory' }).storage).toBe('memory');
    expect(parseConfig({ AEH_STORAGE: 'cloudflare-kv' }).storage).toBe('cloudflare-kv');
    expect(parseConfig({ AEH_STORAGE: 'rediss://secure:6380' }).storage).toBe('rediss://secure:6380');
  });

  it.each([
    ['AEH_MAX_BODY_BYTES', '0'],
    ['AEH_MAX_BODY_BYTES', 'lots'],
    ['AEH_CONCURRENCY', '0'],
    ['AEH_CONCURRENCY', '100000'],
    ['OIDC_JWKS_CACHE_TTL', '-5'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
  });

  it('reads flags as 1/0 and refuses anything else', () => {
    expect(parseConfig({ AEH_STRICT_JAIL: 'true' }).strictJail).toBe(true);
    expect(parseConfig({ AEH_STRICT_JAIL: '0' }).strictJail).toBe(false);
    expect(parseConfig({ AEH_ALLOW_QUERY_KEY: 'off' }).allowQueryKey).toBe(false);
    expect(() => parseConfig({ AEH_STRICT_JAIL: 'maybe' })).toThrow('AEH_STRICT_JAIL must be 1 or 0, got "maybe"');
  });

  it('puts the data directory under PROJECT_ROOT unless told otherwise', () => {
    expect(parseConfig({ PROJECT_ROOT: '/root/' }).dataDir).toBe('/root/.aeh');
  });
});

/**
 * The local signer: an Ed25519 key (EdDSA, RFC 8037) kept by the service itself.
 *
 * The key comes from `AEH_SIGNING_JWK` (a private JWK, Ed25519 or P-256, for deployments that inject secrets)
 * or is generated on first start into `AEH_DATA_DIR/keys/local-signer.json`, written atomically with mode 0600
 * (with the `fs` store; with another store the key is kept in that store, under `keys/local-signer.json`). Rotation moves the current key's public half to
 * `retired`, which stays published so certificates signed before keep verifying; `AEH_SIGNING_RETIRED_JWKS`
 * (a JSON array of public JWKs) publishes keys retired elsewhere.
 */
import { CompactSign } from 'jose/jws/compact/sign';
import { exportJWK } from 'jose/key/export';
import { generateKeyPair } from 'jose/key/generate/keypair';
import { importJWK } from 'jose/key/import';
import type { JWK } from 'jose';
import type { Plugin } from '../../core/plugin.ts';
import type { FileAccess, Logger } from '../../core/capabilities.ts';
import type { Store } from '../../core/storage.ts';
import { publishedKey } from './remote-signing.ts';
import { selectSigner, type Signer, type SignerKey, type SigningAlgorithm } from '../../core/signer.ts';
import { parseJson } from '../../core/guards/json.ts';

/** Name of the signer and of its plugin. */
export const LOCAL_SIGNER = 'local';

/** The key file's content. */
export interface LocalKeyFile {
  /** The private JWK of the current key; absent when the current key comes from the environment. */
  current?: JWK;
  /** Public JWKs of retired keys, newest first. */
  retired: JWK[];
}

/** Where the key file lives: a file (mode 0600) or a store key. */
export interface KeyFileLocation {
  read(): Promise<LocalKeyFile | null>;
  write(file: LocalKeyFile): Promise<void>;
  /** Writes only if nothing is there yet (instances sharing a store race on first start; one key wins). */
  create?(file: LocalKeyFile): Promise<boolean>;
  describe: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The key file in `dataDir/keys/local-signer.json` through the runtime's files, else in the store. */
export function keyFileLocation(options: { files?: FileAccess; dataDir: string; store?: Store }): KeyFileLocation {
  const { files, dataDir, store } = options;
  if (files) {
    const path = `${dataDir.replace(/\/+$/, '')}/keys/local-signer.json`;
    return {
      describe: path,
      async read() {
        try {
          // parseJson: a JSON.parse message would quote the private key into the start-up error.
          return parseJson(decoder.decode(await files.readFile(path))) as LocalKeyFile;
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOENT') return null;
          throw new Error(`cannot read the signing key file ${path}: ${(error as Error).message}`);
        }
      },
      write: (file) => files.writeFile(path, encoder.encode(`${JSON.stringify(file, null, 2)}\n`), { mode: 0o600 }),
    };
  }
  if (!store) throw new Error('the local signer needs a file system or a store for its key');
  return {
    describe: 'store key keys/local-signer.json',
    read: () => store.getJson<LocalKeyFile>('keys/local-signer.json'),
    write: (file) => store.setJson('keys/local-signer.json', file),
    create: (file) => store.setIfAbsent('keys/local-signer.json', JSON.stringify(file)),
  };
}

function algOf(jwk: JWK): SigningAlgorithm {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  throw new Error(`a signing key must be Ed25519 (OKP) or P-256 (EC), got ${jwk.kty}/${jwk.crv}`);
}

/** Generates a new Ed25519 private JWK. */
export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return exportJWK(privateKey);
}

/** Parses `AEH_SIGNING_JWK`; the message names the variable and never echoes the key. */
export function parseSigningJwk(raw: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(raw) as JWK;
  } catch {
    throw new Error('AEH_SIGNING_JWK is not valid JSON; set it to a private JWK (Ed25519 or P-256) with its "d" member');
  }
  if (!jwk || typeof jwk !== 'object' || typeof jwk.d !== 'string') throw new Error('AEH_SIGNING_JWK must be a private JWK with a "d" member');
  algOf(jwk);
  return jwk;
}

function parseRetired(raw: string | undefined): JWK[] {
  if (!raw?.trim()) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('AEH_SIGNING_RETIRED_JWKS is not valid JSON; set it to an array of public JWKs');
  }
  const keys = Array.isArray(value) ? value : (value as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) throw new Error('AEH_SIGNING_RETIRED_JWKS must be an array of public JWKs (or a JWKS {keys})');
  return keys as JWK[];
}

async function publicHalf(jwk: JWK): Promise<SignerKey> {
  return publishedKey(jwk, algOf(jwk));
}

/**
 * Retires the current key of a key file and generates a new one; returns the new and retired `kid`s.
 * Used by `aeh keys rotate` and on start when `AEH_SIGNING_JWK` replaces a generated key.
 */
export async function rotateLocalKey(location: KeyFileLocation, next?: JWK): Promise<{ kid: string; retired: string | null }> {
  const file = (await location.read()) ?? { retired: [] };
  let retiredKid: string | null = null;
  if (file.current) {
    const old = await publicHalf(file.current);
    retiredKid = old.kid;
    file.retired = [old.jwk, ...file.retired.filter((key) => key.kid !== old.kid)];
  }
  file.current = next ?? (await generateSigningJwk());
  await location.write(file);
  return { kid: (await publicHalf(file.current)).kid, retired: retiredKid };
}

/** Options of `createLocalSigner`. */
export interface LocalSignerOptions {
  /** Where the generated key lives (resolved at start, when the store is open: until then, a promise of it). */
  location: () => KeyFileLocation | Promise<KeyFileLocation>;
  /** `AEH_SIGNING_JWK`, when the key is given by the environment. */
  envJwk?: string;
  /** `AEH_SIGNING_RETIRED_JWKS`. */
  retiredJwks?: string;
  logger?: () => Logger | undefined;
}

/** A loaded key: `published` holds the public JWKs, built once per load so every request sees the same objects. */
type LoadedKey = { key: SignerKey | null; signingKey: CryptoKey | Uint8Array | null; published: JWK[] };

/**
 * The private JWK to sign with: the environment's (retiring a generated key it replaces, so that key's
 * certificates still verify), else the stored one, else (with `generate`) a new one; and the key file as it now is.
 */
async function privateKeyOf(options: LocalSignerOptions, location: KeyFileLocation, generate: boolean): Promise<{ privateJwk?: JWK; file: LocalKeyFile | null }> {
  let file = await location.read();
  let privateJwk: JWK | undefined;
  if (options.envJwk?.trim()) {
    privateJwk = parseSigningJwk(options.envJwk);
    const envKid = (await publicHalf(privateJwk)).kid;
    // A generated key that the environment now replaces is retired, not forgotten: its certificates must verify.
    if (file?.current && (await publicHalf(file.current)).kid !== envKid) {
      const old = await publicHalf(file.current);
      file = { retired: [old.jwk, ...file.retired.filter((key) => key.kid !== old.kid)] };
      await location.write(file);
      options.logger?.()?.info('local signer: the key from AEH_SIGNING_JWK replaces the generated key, which stays published as retired', { retired_kid: old.kid });
    }
  } else if (file?.current) {
    privateJwk = file.current;
  } else if (generate) {
    if (location.create) await location.create({ current: await generateSigningJwk(), retired: file?.retired ?? [] });
    else await rotateLocalKey(location);
    // Another instance may have written its key at the same moment: adopt whatever is stored now.
    file = await location.read();
    privateJwk = file?.current;
    options.logger?.()?.info(`local signer: generated an Ed25519 signing key in ${location.describe} (mode 0600)`);
  }
  return { privateJwk, file };
}

/** The signing key and the published key set (current and retired); null when there is neither. */
async function loadKey(options: LocalSignerOptions, generate: boolean): Promise<LoadedKey | null> {
  const { privateJwk, file } = await privateKeyOf(options, await options.location(), generate);
  const retired = await Promise.all([...(file?.retired ?? []), ...parseRetired(options.retiredJwks)].map(async (jwk) => (await publicHalf(jwk)).jwk));
  if (!privateJwk) return retired.length ? { key: null, signingKey: null, published: retired } : null;
  const key = await publicHalf(privateJwk);
  const signingKey = (await importJWK(privateJwk, key.alg)) as CryptoKey | Uint8Array;
  return { key, signingKey, published: [key.jwk, ...retired.filter((jwk) => jwk.kid !== key.kid)] };
}

/** The local signer; the key is loaded (or generated) on first use and cached. */
export function createLocalSigner(options: LocalSignerOptions): Signer & { load(generate: boolean): Promise<SignerKey | null> } {
  let loaded: Promise<LoadedKey | null> | undefined;

  const ensure = (generate: boolean): Promise<LoadedKey | null> => {
    loaded ??= loadKey(options, generate).catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
  const current = async () => {
    let state = await ensure(true);
    if (!state?.key) {
      // Loaded earlier without generating (another signer was active): generate now that a key is needed.
      loaded = undefined;
      state = await ensure(true);
    }
    if (!state?.key || !state.signingKey) throw new Error('the local signer has no key');
    return { key: state.key, signingKey: state.signingKey };
  };

  return {
    name: LOCAL_SIGNER,
    async load(generate) {
      const state = await ensure(generate);
      return state?.key ?? null;
    },
    async currentKey() {
      return (await current()).key;
    },
    async publicKeys() {
      const state = await ensure(false);
      if (!state) return [];
      return state.published;
    },
    async sign(payload, header) {
      const { key, signingKey } = await current();
      return new CompactSign(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: header.typ }).sign(signingKey);
    },
    async health() {
      try {
        const { key } = await current();
        return { ok: true, message: `local key ${key.kid} (${key.alg}) loaded` };
      } catch (error) {
        return { ok: false, message: `local signer: ${(error as Error).message}` };
      }
    },
  };
}

export default {
  name: 'signer-local',
  settings: {
    type: 'object',
    properties: {
      AEH_SIGNING_JWK: { type: 'string', description: 'A private JWK to sign with instead of the generated key file' },
      AEH_SIGNING_RETIRED_JWKS: { type: 'string', description: 'Public JWKs of retired keys, still published (a JSON array)' },
    },
  },
  setup(host) {
    let location: KeyFileLocation | undefined;
    let logger: Logger | undefined;
    // The key lives where the data lives: a 0600 file beside the `fs` store, or in the store itself (memory:
    // gone with the data; Redis: one key shared by every instance, so each verifies what the others signed).
    const files = host.config.storage === 'fs' ? host.capabilities.files : undefined;
    // Runs resumed at start may end (and be certified) before this start hook ran: a key kept in the store is
    // then waited for, not reported missing (their certificates were lost on a Redis restart).
    let opened: (started: KeyFileLocation) => void = () => undefined;
    const started = new Promise<KeyFileLocation>((resolve) => { opened = resolve; });
    const signer = createLocalSigner({
      location: () => location ?? (files ? keyFileLocation({ files, dataDir: host.config.dataDir }) : started),
      envJwk: host.settings.AEH_SIGNING_JWK as string | undefined,
      retiredJwks: host.settings.AEH_SIGNING_RETIRED_JWKS as string | undefined,
      logger: () => logger,
    });
    if ((host.settings.AEH_SIGNING_JWK as string | undefined)?.trim()) parseSigningJwk(host.settings.AEH_SIGNING_JWK as string);
    parseRetired(host.settings.AEH_SIGNING_RETIRED_JWKS as string | undefined);
    host.signers.register(signer, 'signer-local');
    host.onStart(async (services) => {
      logger = services.logger;
      location = keyFileLocation({ files, dataDir: services.config.dataDir, store: services.store });
      opened(location);
      // The key is generated on first start only when this signer signs; otherwise an existing file is only
      // read, to keep publishing its keys, and no private key is written to the evaluation disk.
      const active = selectSigner(services.signers, services.config).name === LOCAL_SIGNER;
      await signer.load(active);
    });
  },
} satisfies Plugin;

/**
 * `aeh keys rotate [--data-dir <dir>]`: retires the local signer's key and generates a new Ed25519 key in
 * `AEH_DATA_DIR/keys/local-signer.json` (mode 0600). The retired public key stays published in
 * `/.well-known/jwks.json`, so certificates signed before keep verifying. Restart the service afterwards.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { keyFileLocation, rotateLocalKey } from '../plugins/signers/local.ts';
import { nodeFiles } from '../runtime/node/capabilities.ts';
import { line, type Io } from './io.ts';
import { KEYS_USAGE } from './usage.ts';

const USAGE = `usage: ${KEYS_USAGE}`;

/** Runs `aeh keys`; returns the exit code. */
export async function keysCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false } } });
  } catch (error) {
    line(io.stderr, `${(error as Error).message}\n${USAGE}`);
    return 3;
  }
  if (parsed.positionals[0] !== 'rotate' || parsed.positionals.length !== 1) {
    line(io.stderr, USAGE);
    return 3;
  }
  const root = io.env.PROJECT_ROOT?.trim() || io.cwd;
  const dataDir = resolve(io.cwd, parsed.values['data-dir'] ?? (io.env.AEH_DATA_DIR?.trim() || resolve(root, '.aeh')));
  if (io.env.AEH_SIGNING_JWK?.trim()) line(io.stderr, 'note: AEH_SIGNING_JWK is set; the service signs with that key, not with the rotated file key');
  const rotated = await rotateLocalKey(keyFileLocation({ files: nodeFiles(), dataDir }));
  if (parsed.values.json) line(io.stdout, JSON.stringify({ kid: rotated.kid, retired: rotated.retired, data_dir: dataDir }));
  else line(io.stdout, `new key ${rotated.kid}${rotated.retired ? `; retired ${rotated.retired} (still published)` : ''} in ${dataDir}/keys/local-signer.json; restart the service to sign with it`);
  return 0;
}

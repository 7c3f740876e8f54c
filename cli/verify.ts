/**
 * `aeh verify <certificate.json> --trace <file> [--sidecars <dir>] --jwks <url-or-file>`: offline verification
 * for CI/CD gates. Needs no running service: it re-hashes the trace and every sidecar in the evidence ledger,
 * validates the schema, verifies every provenance signature in order against the given key set only, and
 * checks expiry (docs/certificates.md). With `--certificate-only` instead of `--trace`, the certificate alone (a run
 * whose evidence retention deleted): schema, signatures and expiry, nothing re-hashed. A certificate that names its
 * scenario (issue 32 item 7) is checked against its `scenario.json` (the content hash computed again) and, with
 * `--require-origin catalog`, must name a scenario of that origin. `--policy-at-least` fails a certificate whose
 * signed verdict policy is weaker than the defaults or a given policy.
 * Exit 0 valid, 1 invalid, 2 expired, 3 usage or I/O error.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { JWK } from 'jose';
import { isSafeBasename } from '../core/domain/certificate.ts';
import { verifyCertificate, type VerificationResult } from '../core/domain/verify-certificate.ts';
import { nodeSha3 } from '../runtime/node/capabilities.ts';
import { line, type Io } from './io.ts';
import { parseJson } from '../core/guards/json.ts';
import { describeLoosenings, parseReferencePolicy, policyLoosenings } from '../core/domain/policy-strength.ts';
import type { VerdictPolicy, VerdictPolicyInput } from '../core/domain/verdict-policy.ts';
import { runContentHash, SCENARIO_ORIGINS, type ScenarioIdentity } from '../core/domain/scenario-identity.ts';
import { BUNDLE_FILE, BUNDLED_FILES, fileInBundle } from '../core/domain/evidence-bundle.ts';

/** Exit codes of `aeh verify`. */
export const VERIFY_EXIT = { valid: 0, invalid: 1, expired: 2, error: 3 } as const;

const USAGE = `usage: aeh verify <certificate.json> (--trace <file> [--sidecars <dir>] | --certificate-only) --jwks <url-or-file> [--require-role <role>]... [--require-origin ${SCENARIO_ORIGINS.join('|')}] [--refuse-cached] [--policy-at-least default|<policy.json>] [--json]`;

async function openFile(path: string): Promise<ReadableStream<Uint8Array> | null> {
  try {
    if (!(await stat(path)).isFile()) return null;
  } catch {
    return null;
  }
  return Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 20 })) as unknown as ReadableStream<Uint8Array>;
}

/**
 * A sidecar from the folder: its own file (as `aeh evaluate` and `runs:export` save them), else cut out of the
 * folder's `sidecars.bundle` (a run folder of the `fs` store, which keeps the end-of-run sidecars bundled).
 */
async function openSidecar(dir: string, name: string): Promise<ReadableStream<Uint8Array> | Uint8Array | null> {
  if (!isSafeBasename(name)) return null;
  const own = await openFile(join(dir, name));
  if (own !== null || !BUNDLED_FILES.has(name)) return own;
  return fileInBundle(await readFile(join(dir, BUNDLE_FILE)).catch(() => null), name);
}

/** Reads a JWKS from a URL (http/https, fetched once; the gate's own trusted address) or a file. */
async function loadJwks(source: string, cwd: string): Promise<JWK[]> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(15_000) });
    if (!response.ok) throw new Error(`GET ${source} answered ${response.status}`);
    text = await response.text();
  } else {
    text = await readFile(resolve(cwd, source), 'utf8');
  }
  const parsed = parseJson(text) as { keys?: unknown };
  if (!parsed || !Array.isArray(parsed.keys)) throw new Error(`${source} is not a JSON Web Key Set ({"keys": [...]})`);
  return parsed.keys as JWK[];
}

function printReport(io: Io, result: VerificationResult): void {
  const width = Math.max(...result.checks.map((check) => check.id.length));
  for (const check of result.checks) line(io.stdout, `${check.ok ? 'ok  ' : 'FAIL'} ${check.id.padEnd(width)}  ${check.detail}`);
  const failed = result.checks.filter((check) => !check.ok).map((check) => check.id);
  line(io.stdout, `${result.status}${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`);
}

/**
 * A certificate whose run took answers from the response cache says so in its signed `cache` member; the report
 * shows it, and `--refuse-cached` makes it a failed check, for gates that accept only answers asked for this run.
 */
function cacheCheck(certificate: unknown, result: VerificationResult, refuse: boolean): void {
  const cache = (certificate as { cache?: { cached_calls?: unknown; agent_calls?: unknown } } | null)?.cache;
  if (!cache || typeof cache !== 'object') return;
  const detail = `${String(cache.cached_calls)} of ${String(cache.agent_calls)} agent answers came from the response cache`;
  result.checks.push({ id: 'cache', ok: !refuse, detail: refuse ? `${detail} (--refuse-cached)` : detail });
  if (refuse && result.status !== 'invalid') {
    result.valid = false;
    result.status = 'invalid';
  }
}

/**
 * `--policy-at-least default|FILE`: the certificate's signed verdict policy must gate at least as much as the
 * defaults or the policy in FILE (any of its fields, each a floor). A certificate signed under a weaker policy, or
 * with no signed policy (written before verdict policies), fails the check: a gate cannot trust what it cannot read.
 */
function policyCheck(certificate: unknown, result: VerificationResult, reference: VerdictPolicyInput, source: string): void {
  const compliance = (certificate as { compliance?: { policy?: VerdictPolicy } } | null)?.compliance;
  const policy = compliance && typeof compliance === 'object' ? compliance.policy : undefined;
  const weaker = policy ? policyLoosenings(policy, reference) : [];
  const ok = policy !== undefined && weaker.length === 0;
  const detail = !policy ? 'the certificate signs no verdict policy' : ok ? `the signed verdict policy is at least ${source}` : `the signed verdict policy is weaker than ${source}: ${describeLoosenings(weaker)}`;
  result.checks.push({ id: 'policy', ok, detail });
  if (!ok && result.status !== 'invalid') {
    result.valid = false;
    result.status = 'invalid';
  }
}

/** The reference policy of `--policy-at-least`: `default`, or a JSON policy file. */
async function referencePolicy(value: string, cwd: string): Promise<{ reference: VerdictPolicyInput; source: string }> {
  if (value.trim() === 'default') return { reference: parseReferencePolicy('default', '--policy-at-least'), source: 'the defaults' };
  const text = await readFile(resolve(cwd, value), 'utf8');
  return { reference: parseReferencePolicy(text, `--policy-at-least ${value}`), source: value };
}

/** Marks the result invalid (a failed check of the gate's own, after the certificate's). */
function fail(result: VerificationResult): void {
  result.valid = false;
  result.status = 'invalid';
}

/**
 * The scenario a certificate names (issue 32 item 7): shown; its content hash computed again from the run's
 * `scenario.json` when the sidecars are at hand (the ledger check proved them the judged bytes); with
 * `--require-origin`, a certificate naming no scenario, or one of another origin, fails.
 */
async function scenarioCheck(certificate: unknown, result: VerificationResult, plan: (() => Promise<string | null>) | null, requireOrigin: string | undefined): Promise<void> {
  const claimed = (certificate as { scenario?: ScenarioIdentity } | null)?.scenario;
  if (!claimed || typeof claimed !== 'object') {
    if (requireOrigin) {
      result.checks.push({ id: 'scenario', ok: false, detail: `the certificate names no scenario origin (--require-origin ${requireOrigin}): it predates scenario identities` });
      fail(result);
    }
    return;
  }
  const problems: string[] = [];
  const text = plan ? await plan() : null;
  let recomputed: string | undefined;
  if (text !== null) {
    try {
      const parsed = JSON.parse(text) as { scenario?: { id?: unknown } };
      recomputed = runContentHash({}, parsed);
      if (parsed.scenario?.id !== claimed.id) problems.push(`scenario.json runs scenario "${String(parsed.scenario?.id)}", the certificate names "${claimed.id}"`);
    } catch {
      problems.push('scenario.json is not JSON');
    }
    if (recomputed !== undefined && recomputed !== claimed.content_hash) problems.push(`scenario.json's content hashes to ${recomputed}, the certificate says ${claimed.content_hash}`);
  }
  if (requireOrigin && claimed.origin !== requireOrigin) problems.push(`the scenario is ${claimed.origin}, not ${requireOrigin} (--require-origin)`);
  const named = `"${claimed.id}" (${claimed.origin}), content ${claimed.content_hash.slice(0, 16)}…`;
  result.checks.push({ id: 'scenario', ok: problems.length === 0, detail: problems.length ? problems.join('; ') : `${named}${recomputed ? ', as scenario.json holds' : ''}` });
  if (problems.length) fail(result);
}

/** The options of `aeh verify`. */
const OPTIONS = {
  trace: { type: 'string' },
  sidecars: { type: 'string' },
  'certificate-only': { type: 'boolean', default: false },
  jwks: { type: 'string' },
  'require-role': { type: 'string', multiple: true },
  'refuse-cached': { type: 'boolean', default: false },
  'policy-at-least': { type: 'string' },
  'require-origin': { type: 'string' },
  now: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type VerifyArgs = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;

/** The command line read and checked, or the exit code to stop with (after saying why, or the usage for --help). */
function verifyArgs(argv: string[], io: Io): { parsed: VerifyArgs; now: number } | number {
  let parsed: VerifyArgs;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    line(io.stderr, `${(error as Error).message}\n${USAGE}`);
    return VERIFY_EXIT.error;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    line(io.stdout, USAGE);
    return VERIFY_EXIT.valid;
  }
  const certificateOnly = values['certificate-only']!;
  if (positionals.length !== 1 || !values.jwks || (certificateOnly ? values.trace !== undefined || values.sidecars !== undefined : !values.trace)) {
    line(io.stderr, USAGE);
    return VERIFY_EXIT.error;
  }
  const requireOrigin = values['require-origin'];
  if (requireOrigin !== undefined && !(SCENARIO_ORIGINS as readonly string[]).includes(requireOrigin)) {
    line(io.stderr, `--require-origin must be one of ${SCENARIO_ORIGINS.join(', ')}\n${USAGE}`);
    return VERIFY_EXIT.error;
  }
  const now = values.now ? Date.parse(values.now) : Date.now();
  if (Number.isNaN(now)) {
    line(io.stderr, `--now "${values.now}" is not an ISO 8601 date-time`);
    return VERIFY_EXIT.error;
  }
  return { parsed, now };
}

/** Runs `aeh verify`; returns the exit code. */
export async function verifyCommand(argv: string[], io: Io): Promise<number> {
  const args = verifyArgs(argv, io);
  if (typeof args === 'number') return args;
  const { parsed: { values, positionals }, now } = args;
  const certificateOnly = values['certificate-only']!;
  const requireOrigin = values['require-origin'];
  const jwks = values.jwks!;
  const certificatePath = resolve(io.cwd, positionals[0]!);
  const tracePath = resolve(io.cwd, values.trace ?? '.');
  const sidecarDir = resolve(io.cwd, values.sidecars ?? dirname(tracePath));
  let certificate: unknown;
  let keys: JWK[];
  let floor: { reference: VerdictPolicyInput; source: string } | undefined;
  try {
    if (values['policy-at-least'] !== undefined) floor = await referencePolicy(values['policy-at-least'], io.cwd);
    const text = await readFile(certificatePath, 'utf8');
    try {
      certificate = JSON.parse(text);
    } catch {
      // Not JSON: verification reports it as invalid on every check, rather than as a usage error.
      certificate = text;
    }
    keys = await loadJwks(jwks, io.cwd);
  } catch (error) {
    line(io.stderr, `aeh verify: ${(error as Error).message}`);
    return VERIFY_EXIT.error;
  }
  const result = await verifyCertificate(certificate, {
    keys,
    now,
    factory: nodeSha3,
    requireRoles: values['require-role'],
    source: certificateOnly ? null : {
      // The trace is the file given, whatever its name; the certificate's trace_file names it for the service.
      trace: () => openFile(tracePath),
      sidecar: (name) => openSidecar(sidecarDir, name),
    },
  });
  cacheCheck(certificate, result, values['refuse-cached']!);
  if (floor) policyCheck(certificate, result, floor.reference, floor.source);
  const ledgerOk = result.checks.find((check) => check.id === 'evidence_ledger')?.ok === true;
  const plan = certificateOnly || !ledgerOk ? null : () => readFile(join(sidecarDir, 'scenario.json'), 'utf8').catch(() => null);
  await scenarioCheck(certificate, result, plan, requireOrigin);
  if (values.json) line(io.stdout, JSON.stringify({ valid: result.valid, status: result.status, checks: result.checks, expires_at: result.expires_at }, null, 2));
  else printReport(io, result);
  return VERIFY_EXIT[result.status];
}

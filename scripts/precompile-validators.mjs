// Compiles every JSON Schema the service uses into ajv standalone code, so runtimes that forbid code generation
// (workerd, `node --disallow-code-generation-from-strings`) validate without `new Function`.
//
// Schemas are found, not listed: the build loads every bundled plugin into a host and walks its registries
// (route bodies and parameters, metric params, adapter options, named schemas, ...), then imports every module of
// core/ and plugins/ and takes each exported value that is a JSON Schema. A schema defined only inside a module
// (not exported, not registered) is not seen: it is compiled at run time on Node, and fails on edge runtimes.
//
// The output module exports `install(register)`, which registers each validator under its `schemaKey` (SHA-256
// of the JSON with sorted keys); `core/validate.ts` finds them by content.
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';

const standaloneCode = standaloneModule.default ?? standaloneModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

/** Keys of registry items (and of route parameters) that hold a JSON Schema used for validation. */
const SCHEMA_KEYS = ['body', 'params', 'options', 'schema', 'query'];
const SCHEMA_WORDS = ['type', '$schema', 'properties', 'oneOf', 'anyOf', 'allOf', '$ref', 'items', 'const', 'enum', 'required', 'not', 'if'];

function isSchemaLike(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if (!keys.some((key) => SCHEMA_WORDS.includes(key))) return false;
  if (typeof value.type === 'string' || Array.isArray(value.type) || typeof value.$schema === 'string') return true;
  return keys.some((key) => ['properties', 'oneOf', 'anyOf', 'allOf'].includes(key));
}

function isJsonData(value, depth = 0) {
  if (depth > 64) return false;
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every((item) => isJsonData(item, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value).every((item) => isJsonData(item, depth + 1));
  return false;
}

function* registrySchemas(host) {
  for (const [registryName, registry] of Object.entries(host)) {
    if (!registry || typeof registry.list !== 'function' || typeof registry.register !== 'function') continue;
    for (const item of registry.list()) {
      if (!item || typeof item !== 'object') continue;
      for (const key of SCHEMA_KEYS) if (isSchemaLike(item[key])) yield { schema: item[key], source: `${registryName}:${key}` };
      for (const parameter of Array.isArray(item.parameters) ? item.parameters : []) {
        if (isSchemaLike(parameter?.schema)) yield { schema: parameter.schema, source: `${registryName}:parameters` };
      }
      // A shim's actions (their parameters are checked on every call) and its initial state: compiled at start
      // otherwise, which was a sixth of the start-up time.
      for (const action of Array.isArray(item.actions) ? item.actions : []) {
        if (isSchemaLike(action?.parameters)) yield { schema: action.parameters, source: `${registryName}:actions` };
      }
      if (isSchemaLike(item.initialStateSchema)) yield { schema: item.initialStateSchema, source: `${registryName}:initialStateSchema` };
    }
  }
}

function moduleFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && /\.(m?js|ts|tsx)$/.test(entry.name) && !/\.test\.|\.d\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

async function* exportedSchemas(root, folders, log) {
  for (const folder of folders) {
    for (const file of moduleFiles(join(root, folder))) {
      let exported;
      try {
        exported = await import(pathToFileURL(file).href);
      } catch (error) {
        log(`precompile: skipped ${relative(root, file)} (${error.message.split('\n')[0]})`);
        continue;
      }
      for (const [name, value] of Object.entries(exported)) {
        if (isSchemaLike(value)) yield { schema: value, source: `${relative(root, file)}#${name}` };
        // A plugin's settings schema (core/plugin-settings.ts), checked when the plugin loads.
        else if (value && typeof value === 'object' && isSchemaLike(value.settings)) yield { schema: value.settings, source: `${relative(root, file)}#${name}.settings` };
      }
    }
  }
}

/** Turns the `require("x")` calls of ajv's standalone output into ES module imports. */
function toEsm(code) {
  const specifiers = [];
  const body = code.replace(/require\("([^"]+)"\)/g, (_, specifier) => {
    if (!specifiers.includes(specifier)) specifiers.push(specifier);
    return `__runtime${specifiers.indexOf(specifier)}`;
  });
  // The helpers are CommonJS. Node's ESM loader puts `module.exports` on `default`; bundlers (esbuild, vite) honour
  // `__esModule` and spread the exports instead. `__commonjs` gives `module.exports` either way.
  const imports = specifiers.map((specifier, index) => `import * as __namespace${index} from ${JSON.stringify(/\.[cm]?js$/.test(specifier) ? specifier : `${specifier}.js`)};\nconst __runtime${index} = __commonjs(__namespace${index});`);
  const helper = 'function __commonjs(namespace) { return namespace.default && typeof namespace.default === "object" ? namespace.default : namespace; }';
  return `${imports.join('\n')}\n${helper}\n${body.replace(/^"use strict";/, '')}`;
}

/**
 * Collects the schemas and writes the standalone module.
 * @param {object} options
 * @param {string} options.root the folder holding core/, plugins/ and runtime/ (dist/ for the build)
 * @param {string} options.out the module to write
 * @param {string} [options.catalogOut] the module of the catalog loader's validators only, to write beside it
 * @param {(path: string) => Promise<any>} options.load imports a module of `root` by its path without extension
 * @param {(message: string) => void} [options.log]
 * @returns {Promise<{count: number, sources: string[]}>}
 */
export async function precompileValidators({ root, out, catalogOut, load, log = console.log }) {
  const [{ schemaKey, AJV_OPTIONS }, { parseConfig }, { createHost }, { loadPlugins }, { nodePlugins }] = await Promise.all([
    load('core/validate'),
    load('core/config'),
    load('core/plugin-host'),
    load('core/plugin'),
    load('runtime/node/plugins'),
  ]);
  // Every optional plugin configured, so that plugins enabled only by configuration register their schemas too.
  const config = parseConfig({
    DASHBOARD_API_KEY: 'k'.repeat(64),
    AEH_STORAGE: 'memory',
    OIDC_JWKS_URL: 'https://idp.invalid/jwks.json',
    AEH_LLM_BASE_URL: 'https://llm.invalid/v1',
    AEH_LLM_MODEL: 'build',
  }, root);
  const host = createHost(config, { runtime: { name: 'build', version: '0' } });
  loadPlugins(host, nodePlugins());

  const found = [...registrySchemas(host)];
  for await (const entry of exportedSchemas(root, ['core', 'plugins'], log)) found.push(entry);

  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true, esm: true } });
  addFormats(ajv);
  const probe = new Ajv2020({ ...AJV_OPTIONS });
  addFormats(probe);
  const exports = {};
  const keys = new Map();
  const ids = new Map();
  for (const { schema, source } of found) {
    if (!isJsonData(schema)) continue;
    const key = schemaKey(schema);
    if (keys.has(key)) continue;
    try {
      probe.compile(structuredClone(schema));
    } catch (error) {
      log(`precompile: ${source} does not compile (${error.message}); left to run time`);
      continue;
    }
    const id = typeof schema.$id === 'string' ? schema.$id : undefined;
    if (id && ids.has(id)) {
      log(`precompile: ${source} reuses $id ${id} of ${ids.get(id)} with other content; left to run time`);
      continue;
    }
    if (id) ids.set(id, source);
    const ref = id ?? `aeh:${key}`;
    ajv.addSchema(structuredClone(schema), id ? undefined : ref);
    const name = `v${keys.size}`;
    exports[name] = ref;
    keys.set(key, { name, source });
  }

  writeModule(out, ajv, keys, exports);
  // The catalog prefetch worker's own module (runtime/node/catalog-prefetch-worker.ts): only the validators that
  // loading a catalog file uses, a few KB where the whole module is 1.36 MB and ~75 ms of the worker's CPU before
  // its first file (issue 36). A schema missing here is compiled at run time there: slower, never wrong.
  if (catalogOut) {
    const [{ scenarioSchema }, { aesSchema }] = await Promise.all([load('core/domain/schemas/scenario'), load('plugins/aes/schema')]);
    const catalogKeys = new Map([scenarioSchema, aesSchema].map((schema) => schemaKey(schema)).filter((key) => keys.has(key)).map((key) => [key, keys.get(key)]));
    writeModule(catalogOut, ajv, catalogKeys, Object.fromEntries([...catalogKeys.values()].map(({ name }) => [name, exports[name]])));
  }
  return { count: keys.size, sources: [...keys.values()].map((entry) => entry.source) };
}

/** Writes the standalone module of the validators `keys` names (`exports`: each name's schema reference). */
function writeModule(out, ajv, keys, exports) {
  const code = toEsm(standaloneCode(ajv, exports));
  const table = [...keys].map(([key, { name }]) => `  register(${JSON.stringify(key)}, ${name});`).join('\n');
  const text = `// Generated by scripts/precompile-validators.mjs: ajv standalone validators of ${keys.size} schemas. Do not edit.\n${code}\n\n/** Registers every validator under its schemaKey. */\nexport function install(register) {\n${table}\n}\n\nexport const sources = ${JSON.stringify(Object.fromEntries([...keys].map(([key, { source }]) => [key, source])), null, 0)};\n`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}

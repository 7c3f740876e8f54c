#!/usr/bin/env node
/**
 * Architecture checks (issue #14, "A kernel worth extending"): import cycles, who may import whom, who may read
 * the environment, function and file length, and the kernel's size. Every non-test source file is parsed with
 * oxc-parser (TypeScript 7's npm package has no compiler API), so comments and strings never count as imports.
 *
 * `node scripts/architecture.mjs` prints the report and exits 1 on a violation; test/architecture.test.ts runs
 * the same checks. The layout the rules speak of is the data just below.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

// ---------------------------------------------------------------------------------------------------------------
// The layout, as data. Patterns are globs over repository paths: `*` stays inside one folder, `**` crosses them.

/** Folders whose non-test .ts, .tsx and .mjs files are checked (a missing folder is skipped). */
export const SOURCE_ROOTS = ['core', 'plugins', 'runtime', 'cli', 'testing', 'examples'];

/** Files that are tests, not source: excluded from every check. */
export const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/*.test.mjs'];

/** The kernel: what every other part of core/ may import, and what the size report counts. */
export const KERNEL = ['core/*.ts', 'core/pipeline/**'];

/** Length limits, in physical lines; `failOnKernelSize` stays false until the lead says the target holds. */
export const LIMITS = { functionLines: 80, fileLines: 310, kernelLines: 2500, failOnKernelSize: false };

/**
 * Import rules. A rule applies to the files matching `files` (minus `except`); an import that resolves to a file of
 * this repository breaks it when it matches `forbid`, or, for a rule with `allow`, when it matches none of `allow`.
 * `samePluginOnly` forbids any file under another plugins/<name>/ folder. Imports of packages are not judged here.
 */
export const IMPORT_RULES = [
  {
    rule: 'the core imports no plugin, runtime or CLI file',
    files: ['core/**'],
    forbid: ['plugins/**', 'runtime/**', 'cli/**'],
  },
  {
    rule: 'a guard imports only the kernel and other guards',
    files: ['core/guards/**'],
    allow: [...KERNEL, 'core/guards/**'],
  },
  {
    rule: 'the domain imports only the kernel and the domain',
    files: ['core/domain/**'],
    allow: [...KERNEL, 'core/domain/**'],
  },
  {
    rule: "a plugin imports nothing from another plugin's folder",
    files: ['plugins/**'],
    except: ['plugins/bundled.ts'], // the ordered list of bundled plugins names every one of them
    samePluginOnly: true,
  },
];

/** The only files that may read process.env, Deno.env or Bun.env. */
export const ENV_READERS = ['runtime/**'];

/**
 * Violations known and owned: reported as pending instead of failing, so main stays green while their owner
 * fixes them. An entry matches a violation of its `check` in its `file` whose message contains `includes`. An
 * entry that matches nothing fails the run ("stale pending entry"), so the list only shrinks; empty it and every
 * check is strict.
 */
export const PENDING = [];

// ---------------------------------------------------------------------------------------------------------------

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceExtensions = ['.ts', '.tsx', '.mjs'];

/** Turns a glob (`*`, `**`) into a RegExp over repository paths. */
function globToRegExp(glob) {
  let pattern = '';
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at];
    if (char === '*' && glob[at + 1] === '*') {
      // `dir/**` also matches `dir/x/y`; `**/x` also matches `x` at the top.
      const slashAfter = glob[at + 2] === '/';
      pattern += slashAfter ? '(?:.*/)?' : '.*';
      at += slashAfter ? 2 : 1;
    } else if (char === '*') pattern += '[^/]*';
    else pattern += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

const globCache = new Map();
function matchesAny(path, globs = []) {
  return globs.some((glob) => {
    if (!globCache.has(glob)) globCache.set(glob, globToRegExp(glob));
    return globCache.get(glob).test(path);
  });
}

function listSourceFiles(root) {
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = posix.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path);
      } else if (sourceExtensions.some((extension) => entry.name.endsWith(extension))) {
        if (!entry.name.endsWith('.d.ts') && !matchesAny(path, TEST_FILES)) files.push(path);
      }
    }
  };
  for (const folder of SOURCE_ROOTS) if (existsSync(join(root, folder))) walk(folder);
  return files.sort();
}

/** Resolves a relative specifier the way tsx and TypeScript's NodeNext do for this repository's files. */
function resolveSpecifier(fromFile, specifier, root) {
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(fromFile), specifier));
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base.replace(/\.jsx$/, '.tsx')];
  for (const extension of sourceExtensions) candidates.push(base + extension, `${base}/index${extension}`);
  return candidates.find((candidate) => existsSync(join(root, candidate)) && !candidate.endsWith('/')) ?? base;
}

/** Offsets of line starts, to turn a node's offset into a 1-based line number. */
function lineStarts(text) {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

function lineOf(starts, offset) {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** Physical lines, as `wc -l` counts them plus a last line without a newline. */
function countLines(text) {
  if (text.length === 0) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function keyName(key) {
  if (!key) return undefined;
  if (key.type === 'Identifier' || key.type === 'PrivateIdentifier') return key.name;
  if (key.type === 'Literal') return String(key.value);
  return '[computed]';
}

function calleeName(callee) {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'CallExpression') return `${calleeName(callee.callee) ?? '…'}(…)`;
  if (callee.type === 'MemberExpression') {
    const object = calleeName(callee.object) ?? '…';
    return `${object}.${keyName(callee.property)}`;
  }
  return undefined;
}

/** A readable name for a function node, from where it stands. */
function functionName(node, parent) {
  if (node.id?.name) return node.id.name;
  if (!parent) return 'anonymous function';
  switch (parent.type) {
    case 'VariableDeclarator':
      return keyName(parent.id) ?? 'anonymous function';
    case 'MethodDefinition':
    case 'Property':
    case 'PropertyDefinition':
      return keyName(parent.key) ?? 'anonymous method';
    case 'AssignmentExpression':
      return parent.left.type === 'MemberExpression' ? calleeName(parent.left) : keyName(parent.left);
    case 'ExportDefaultDeclaration':
      return 'default export';
    case 'CallExpression':
    case 'NewExpression': {
      const callee = calleeName(parent.callee);
      return callee ? `callback passed to ${callee}()` : 'callback';
    }
    default:
      return 'anonymous function';
  }
}

const envGlobals = new Set(['process', 'Deno', 'Bun']);

/** `process.env`, `Deno.env`, `Bun.env`, also through `globalThis.` or a computed `['env']`. */
function isEnvRead(node) {
  if (node.type !== 'MemberExpression' || keyName(node.property) !== 'env') return false;
  let object = node.object;
  if (object.type === 'MemberExpression' && object.object.type === 'Identifier' && object.object.name === 'globalThis') {
    object = object.property;
  }
  return object.type === 'Identifier' && envGlobals.has(object.name);
}

/** `const { env } = process` */
function isEnvDestructure(node) {
  return (
    node.type === 'VariableDeclarator' &&
    node.id.type === 'ObjectPattern' &&
    node.init?.type === 'Identifier' &&
    envGlobals.has(node.init.name) &&
    node.id.properties.some((property) => property.type === 'Property' && keyName(property.key) === 'env')
  );
}

function isTypeOnlyImport(node) {
  if (node.importKind === 'type') return true;
  return node.specifiers.length > 0 && node.specifiers.every((specifier) => specifier.importKind === 'type');
}

function isTypeOnlyReexport(node) {
  if (node.exportKind === 'type') return true;
  return node.specifiers?.length > 0 && node.specifiers.every((specifier) => specifier.exportKind === 'type');
}

function literalSpecifier(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return undefined;
}

/** What one node adds to the file's facts: an import, a function, an environment read. */
function visitNode(node, parent, facts, starts) {
  const line = () => lineOf(starts, node.start);
  switch (node.type) {
    case 'ImportDeclaration':
      facts.imports.push({ specifier: node.source.value, line: line(), kind: isTypeOnlyImport(node) ? 'type' : 'value' });
      break;
    case 'ExportNamedDeclaration':
    case 'ExportAllDeclaration':
      if (node.source) {
        facts.imports.push({ specifier: node.source.value, line: line(), kind: isTypeOnlyReexport(node) ? 'type' : 'value' });
      }
      break;
    case 'ImportExpression': {
      const specifier = literalSpecifier(node.source);
      if (specifier) facts.imports.push({ specifier, line: line(), kind: 'dynamic' });
      break;
    }
    case 'TSImportType': {
      const specifier = literalSpecifier(node.source ?? node.argument?.literal ?? node.argument);
      if (specifier) facts.imports.push({ specifier, line: line(), kind: 'type-query' });
      break;
    }
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression': {
      if (!node.body) break; // an overload signature or a declared function
      // A method's lines start at its name, not at its parameter list.
      const owner = parent && ['MethodDefinition', 'Property', 'PropertyDefinition'].includes(parent.type) ? parent : node;
      const startLine = lineOf(starts, owner.start);
      const endLine = lineOf(starts, node.end - 1);
      facts.functions.push({ name: functionName(node, parent), line: startLine, lines: endLine - startLine + 1 });
      break;
    }
    default:
      if (isEnvRead(node) || isEnvDestructure(node)) facts.envReads.push({ line: line() });
  }
}

function walk(node, parent, visit) {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, parent, visit);
    return;
  }
  if (!node || typeof node !== 'object' || typeof node.type !== 'string') return;
  visit(node, parent);
  for (const key in node) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'range' || key === 'loc') continue;
    const child = node[key];
    if (child && typeof child === 'object') walk(child, node, visit);
  }
}

/** Parses one file and collects its imports, functions and environment reads. */
function analyseFile(path, root) {
  const text = readFileSync(join(root, path), 'utf8');
  const result = parseSync(path, text, { sourceType: 'module' });
  const starts = lineStarts(text);
  const facts = { path, lines: countLines(text), imports: [], functions: [], envReads: [], parseErrors: [] };
  for (const error of result.errors) {
    const offset = error.labels?.[0]?.start ?? 0;
    facts.parseErrors.push({ line: lineOf(starts, offset), message: error.message });
  }
  walk(result.program, undefined, (node, parent) => visitNode(node, parent, facts, starts));
  for (const entry of facts.imports) entry.target = resolveSpecifier(path, entry.specifier, root);
  return facts;
}

// ---------------------------------------------------------------------------------------------------------------
// Cycles: strongly connected components (Tarjan) of the static import graph.

function stronglyConnected(nodes, edgesOf) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let counter = 0;
  const connect = (node) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edgesOf(node)) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return components;
}

/** Value-import cycles, and the further cycles that exist only through `import type`. */
function findCycles(filesByPath) {
  const staticImports = (path, kinds) =>
    filesByPath.get(path).imports.filter((entry) => kinds.includes(entry.kind) && filesByPath.has(entry.target));
  const targets = (path, kinds) => [...new Set(staticImports(path, kinds).map((entry) => entry.target))];
  const paths = [...filesByPath.keys()];
  const valueComponents = stronglyConnected(paths, (path) => targets(path, ['value']));
  const valueKeys = new Set(valueComponents.map((component) => component.join('\n')));
  const allComponents = stronglyConnected(paths, (path) => targets(path, ['value', 'type']));
  const describe = (component, kind) => {
    const members = new Set(component);
    const edges = component.flatMap((path) =>
      staticImports(path, ['value', 'type'])
        .filter((entry) => members.has(entry.target))
        .map((entry) => ({ file: path, line: entry.line, target: entry.target, kind: entry.kind })),
    );
    return { kind, files: component, edges };
  };
  return [
    ...valueComponents.map((component) => describe(component, 'value')),
    ...allComponents
      .filter((component) => !valueKeys.has(component.join('\n')))
      .map((component) => describe(component, 'type')),
  ];
}

// ---------------------------------------------------------------------------------------------------------------

function importViolations(files) {
  const violations = [];
  for (const file of files) {
    for (const rule of IMPORT_RULES) {
      if (!matchesAny(file.path, rule.files) || matchesAny(file.path, rule.except)) continue;
      for (const entry of file.imports) {
        if (!entry.target || entry.target.startsWith('..')) continue;
        const broken = rule.samePluginOnly
          ? isOtherPlugin(file.path, entry.target)
          : matchesAny(entry.target, rule.forbid) || (rule.allow !== undefined && !matchesAny(entry.target, rule.allow));
        if (broken) {
          violations.push({
            check: 'imports',
            file: file.path,
            line: entry.line,
            message: `imports ${entry.target} (${entry.kind}): ${rule.rule}`,
          });
        }
      }
    }
  }
  return violations;
}

function pluginFolder(path) {
  const parts = path.split('/');
  return parts[0] === 'plugins' && parts.length > 2 ? parts[1] : undefined;
}

function isOtherPlugin(fromPath, targetPath) {
  const target = pluginFolder(targetPath);
  return target !== undefined && target !== pluginFolder(fromPath);
}

function envViolations(files) {
  return files
    .filter((file) => !matchesAny(file.path, ENV_READERS))
    .flatMap((file) =>
      file.envReads.map((read) => ({
        check: 'environment',
        file: file.path,
        line: read.line,
        message: 'reads the environment: only runtime/ reads process.env, Deno.env or Bun.env',
      })),
    );
}

function lengthViolations(files) {
  const violations = [];
  for (const file of files) {
    if (file.lines > LIMITS.fileLines) {
      violations.push({
        check: 'file length',
        file: file.path,
        line: 1,
        message: `${file.lines} lines (at most ${LIMITS.fileLines})`,
      });
    }
    for (const fn of file.functions) {
      if (fn.lines > LIMITS.functionLines) {
        violations.push({
          check: 'function length',
          file: file.path,
          line: fn.line,
          message: `${fn.name}: ${fn.lines} lines (at most ${LIMITS.functionLines})`,
        });
      }
    }
  }
  return violations;
}

function cycleViolations(cycles) {
  return cycles.map((cycle) => ({
    check: cycle.kind === 'value' ? 'import cycle' : 'type-only import cycle',
    file: cycle.edges[0].file,
    line: cycle.edges[0].line,
    message:
      `${cycle.files.length} files import each other${cycle.kind === 'type' ? ' (closed only by `import type`)' : ''}:\n` +
      cycle.edges.map((edge) => `    ${edge.file}:${edge.line} imports ${edge.target}${edge.kind === 'type' ? ' (type)' : ''}`).join('\n'),
  }));
}

function kernelReport(files) {
  const kernelFiles = files.filter((file) => matchesAny(file.path, KERNEL));
  const lines = kernelFiles.reduce((sum, file) => sum + file.lines, 0);
  const largest = [...kernelFiles].sort((a, b) => b.lines - a.lines).slice(0, 8);
  return { lines, target: LIMITS.kernelLines, files: kernelFiles.length, largest: largest.map(({ path, lines }) => ({ path, lines })) };
}

/**
 * Runs every check over the repository at `root` (this one by default); the violations `pending` lists are
 * returned apart (`pending`), not among `violations`.
 */
export function checkArchitecture(root = repoRoot, pending = PENDING) {
  const files = listSourceFiles(root).map((path) => analyseFile(path, root));
  const filesByPath = new Map(files.map((file) => [file.path, file]));
  const cycles = findCycles(filesByPath);
  const kernel = kernelReport(files);
  const violations = [
    ...files.flatMap((file) =>
      file.parseErrors.map((error) => ({ check: 'parse', file: file.path, line: error.line, message: error.message })),
    ),
    ...cycleViolations(cycles),
    ...importViolations(files),
    ...envViolations(files),
    ...lengthViolations(files),
  ];
  if (LIMITS.failOnKernelSize && kernel.lines > kernel.target) {
    violations.push({ check: 'kernel size', file: 'core', line: 1, message: `${kernel.lines} lines (at most ${kernel.target})` });
  }
  return { files: files.length, ...setPendingApart(violations, pending), cycles, kernel };
}

/** Splits off the violations `pending` lists; a pending entry that matches none becomes a violation itself. */
function setPendingApart(found, pending) {
  const matches = (entry, violation) =>
    violation.check === entry.check && violation.file === entry.file && violation.message.includes(entry.includes ?? '');
  const violations = found.filter((violation) => !pending.some((entry) => matches(entry, violation)));
  const stale = pending
    .filter((entry) => !found.some((violation) => matches(entry, violation)))
    .map((entry) => ({
      check: 'stale pending entry',
      file: entry.file,
      line: 1,
      message: `no ${entry.check} violation${entry.includes ? ` mentioning "${entry.includes}"` : ''} is left here: delete its PENDING entry`,
    }));
  return { violations: [...violations, ...stale], pending: found.filter((violation) => !violations.includes(violation)) };
}

/** One line per violation (`file:line  check: message`), grouped by check. */
export function formatViolations(violations) {
  return violations.map((violation) => `${violation.file}:${violation.line}  ${violation.check}: ${violation.message}`).join('\n');
}

function printReport({ files, violations, pending, kernel }) {
  const checks = ['parse', 'import cycle', 'type-only import cycle', 'imports', 'environment', 'function length', 'file length', 'kernel size', 'stale pending entry'];
  console.log(`architecture: ${files} source files checked`);
  for (const check of checks) {
    const found = violations.filter((violation) => violation.check === check);
    const known = pending.filter((violation) => violation.check === check);
    if (check === 'stale pending entry' && !found.length) continue;
    console.log(`\n${check}: ${found.length === 0 ? 'ok' : `${found.length} violation(s)`}${known.length ? `, ${known.length} pending` : ''}`);
    if (found.length) console.log(formatViolations(found));
    if (known.length) console.log(formatViolations(known.map((violation) => ({ ...violation, check: `pending ${violation.check}` }))));
  }
  const share = kernel.lines <= kernel.target ? 'within' : 'over';
  console.log(`\nkernel (${KERNEL.join(', ')}): ${kernel.lines} lines in ${kernel.files} files, ${share} the target of ${kernel.target}`);
  for (const file of kernel.largest) console.log(`  ${String(file.lines).padStart(5)}  ${file.path}`);
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const result = checkArchitecture();
  printReport(result);
  process.exitCode = result.violations.length ? 1 : 0;
}

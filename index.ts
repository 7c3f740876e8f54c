/**
 * `agent-eval-harness`: what embedding the service in a program needs. Build the app yourself
 * (`createApp(parseConfig(env), plugins, capabilities)`, then serve `app.fetch` with any server), or let the Node
 * builder do it as `aeh serve` does (`startNodeService`, `buildNodeApp`). Plugin authors import
 * `agent-eval-harness/plugin` instead; conformance suites are in `agent-eval-harness/testing`.
 *
 * This entry lives outside `core/` because it names the bundled plugins, which the kernel never imports.
 */
export { createApp, type AehApp, type CreateAppOptions } from './core/app.ts';
export { parseConfig, ConfigError, type Config } from './core/config.ts';
export { consoleLogger, silentLogger, type Logger, type RuntimeCapabilities } from './core/capabilities.ts';
export { PRODUCT_NAME, HARNESS_VERSION } from './core/version.ts';
export { portablePlugins } from './plugins/bundled.ts';
export { nodePlugins } from './runtime/node/plugins.ts';
export { nodeCapabilities } from './runtime/node/capabilities.ts';
export { buildNodeApp, startNodeService, type NodeService } from './runtime/node/start.ts';
export { loadUserPlugins } from './runtime/node/user-plugins.ts';

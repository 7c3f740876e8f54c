/**
 * Registers the build's precompiled JSON Schema validators before anything else of the worker is evaluated:
 * workerd forbids code generation (`new Function`), so ajv cannot compile at run time, and plugins resolve
 * their validators when their modules are evaluated. The runtime entry imports this module first; ES modules
 * are evaluated in import order, so every plugin module sees the validators already registered.
 */
import { install } from 'aeh:precompiled-validators';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { registerPrecompiled } from '../../core/validate.ts';
import { provideAjv, type AjvModules } from '../../core/schema-compiler.ts';

// A module-scope side effect on purpose: it must happen during module evaluation, ahead of the plugins'.
install(registerPrecompiled);
// A bundle has no synchronous require: ajv comes with it, for schemas the build did not see (a compile that
// needs code generation still fails here, saying so).
provideAjv({ Ajv2020, addFormats: ((addFormats as unknown as { default?: unknown }).default ?? addFormats) as AjvModules['addFormats'] });

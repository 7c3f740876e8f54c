/**
 * Registers the build's precompiled JSON Schema validators before anything else of the worker is evaluated:
 * workerd forbids code generation (`new Function`), so ajv cannot compile at run time, and plugins resolve
 * their validators when their modules are evaluated. The runtime entry imports this module first; ES modules
 * are evaluated in import order, so every plugin module sees the validators already registered.
 */
import { install } from 'aeh:precompiled-validators';
import * as ajv from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as obscenity from 'obscenity';
import { registerPrecompiled } from '../../core/validate.ts';
import { provideModule } from '../../core/lazy-module.ts';
import { AJV_FORMATS_MODULE, AJV_MODULE } from '../../core/schema-compiler.ts';

// A module-scope side effect on purpose: it must happen during module evaluation, ahead of the plugins'.
install(registerPrecompiled);
// A bundle has no synchronous require: the packages the Node service loads on first use come with it
// (core/lazy-module.ts). A compile that needs code generation still fails here, saying so.
provideModule(AJV_MODULE, ajv);
provideModule(AJV_FORMATS_MODULE, addFormats);
provideModule('obscenity', obscenity);

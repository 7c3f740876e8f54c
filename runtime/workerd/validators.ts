/**
 * Registers the build's precompiled JSON Schema validators before anything else of the worker is evaluated:
 * workerd forbids code generation (`new Function`), so ajv cannot compile at run time, and plugins resolve
 * their validators when their modules are evaluated. The runtime entry imports this module first; ES modules
 * are evaluated in import order, so every plugin module sees the validators already registered.
 */
import { install } from 'aeh:precompiled-validators';
import { registerPrecompiled } from '../../core/validate.ts';

// A module-scope side effect on purpose: it must happen during module evaluation, ahead of the plugins'.
install(registerPrecompiled);

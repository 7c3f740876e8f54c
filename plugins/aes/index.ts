/**
 * AES v1.4 support: documents in the reference implementation's format are accepted wherever a scenario is
 * (submissions, mutation, catalog folders) and normalised on load. Without this plugin only native scenarios are.
 */
import type { Plugin } from '../../core/plugin.ts';
import { aesFormat } from './format.ts';

export default {
  name: 'aes',
  setup(host) {
    host.scenarioFormats.register(aesFormat, 'aes');
  },
} satisfies Plugin;

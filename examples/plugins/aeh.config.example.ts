/**
 * Example `aeh.config.ts`: copy it to your PROJECT_ROOT as `aeh.config.ts` (or `.js`) and list your plugins.
 * They load after the bundled ones, in this order; a plugin that fails stops the start with its name.
 */
import wordBudget from './word-budget-metric.ts';
import groupsAuthMapping from './groups-auth-mapping.ts';

export default {
  plugins: [wordBudget, groupsAuthMapping],
};

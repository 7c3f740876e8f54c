/** The word_budget example passes the metric conformance suite (its HTTP use is in examples.test.ts). */
import { testMetric } from '../../testing/index.ts';
import wordBudgetPlugin, { wordBudget } from './word-budget-metric.ts';

// The failure code it reports is declared by its plugin, so the suite is told of the plugin's declarations.
testMetric(wordBudget, { params: { max_words: 5 }, failureCodes: wordBudgetPlugin.failureCodes });
testMetric(wordBudget, { failureCodes: wordBudgetPlugin.failureCodes });

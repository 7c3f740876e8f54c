/**
 * The smallest plugin (docs/plugins.md, "Start here"): one metric written as one function.
 * `no_apologies` fails an answer that apologises; `defineMetric` fills in the dimension (reliability), the
 * description and the failure code (`RELIABILITY.NO_APOLOGIES`, declared into the taxonomy for you).
 */
import { defineMetric, definePlugin } from '../../core/plugin-api.ts';

export const noApologies = defineMetric('no_apologies', (output) => !/\b(sorry|apologi[sz]e)\b/i.test(output));

export default definePlugin({ name: 'house-rules', metrics: [noApologies] });

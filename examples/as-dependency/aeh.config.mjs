// Loaded by `aeh serve` from the project's root, after the bundled plugins.
import politeReply from './plugins/js-metric.mjs';

export default { plugins: [politeReply] };

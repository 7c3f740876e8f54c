/** The product's name and version, reported by `GET /api/info` and in certificates' `harness_version`. */
export const PRODUCT_NAME = 'agent-eval-harness';
export const HARNESS_VERSION = '0.1.0';

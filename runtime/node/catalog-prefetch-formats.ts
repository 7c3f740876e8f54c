/** The scenario formats the bundled plugins register (besides the native one), in registration order: what the catalog prefetch worker loads with. */
import type { ScenarioFormat } from '../../core/domain/scenario-format.ts';
import { aesFormat } from '../../plugins/aes/format.ts';

export const PREFETCH_FORMATS: readonly ScenarioFormat[] = [aesFormat];

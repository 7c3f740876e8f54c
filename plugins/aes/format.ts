/**
 * The AES v1.4 scenario format (the reference implementation's catalog format): detected by `aes_version`,
 * checked against `aesSchema` so a broken file is refused with paths into the AES document, then converted.
 */
import type { ScenarioFormat } from '../../core/domain/scenario-format.ts';
import { assertValid } from '../../core/validate.ts';
import { aesSchema } from './schema.ts';
import { AES_FORMAT, aesToScenario, type AesDocument } from './aes-import.ts';

export const aesFormat: ScenarioFormat = Object.freeze({
  name: AES_FORMAT,
  detect: (document: unknown) => typeof document === 'object' && document !== null && 'aes_version' in document,
  toScenario(document: unknown, { path }: { path?: string }) {
    return aesToScenario(assertValid<AesDocument>(aesSchema, document, 'AES v1.4 scenario'), { path }).scenario;
  },
});

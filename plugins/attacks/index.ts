/**
 * The attacks plugin: registers the bundled attacks (AgentDojo's registry but `manual`) and lists what this
 * service offers at `GET /api/v1/attacks`. Which vectors get an attack's text and how its success is judged are
 * the evaluation engine's (plugins/evaluation/submission/attack-cases.ts); an attack only renders text.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Attack } from '../../core/attack.ts';
import { IMPORTANT_INSTRUCTIONS_ATTACKS } from './important-instructions.ts';
import { BASELINE_ATTACKS } from './baseline.ts';
import { DOS_ATTACKS } from './dos.ts';

/** Every bundled attack, in the order `GET /api/v1/attacks` lists them. */
export const BUNDLED_ATTACKS: readonly Attack[] = [...IMPORTANT_INSTRUCTIONS_ATTACKS, ...BASELINE_ATTACKS, ...DOS_ATTACKS];

export default {
  name: 'attacks',
  setup(host) {
    for (const attack of BUNDLED_ATTACKS) host.attacks.register(attack);
    host.routes.register({
      method: 'GET',
      path: '/api/v1/attacks',
      permission: 'scenarios:read',
      summary: 'List the attacks this service offers (for a run\'s `attacks`)',
      tags: ['attacks'],
      responses: {
        200: {
          description: 'The attacks: name, description, whether it is a denial-of-service attack, whether it needs ground truth',
          schema: {
            type: 'object', required: ['items'],
            properties: { items: { type: 'array', items: { type: 'object', required: ['name', 'description', 'dos'], properties: { name: { type: 'string' }, description: { type: 'string' }, dos: { type: 'boolean' }, needs_ground_truth: { type: 'boolean' } } } } },
          },
        },
      },
      handler(c) {
        const items = c.var.services.attacks.list().map((attack) => ({ name: attack.name, description: attack.description, dos: attack.dos === true, needs_ground_truth: attack.needsGroundTruth === true }));
        return c.json({ items });
      },
    });
  },
} satisfies Plugin;

/**
 * A τ-bench data directory of our own for the tests (test/tau-bench.test.ts, test/cli-bench-tau.test.ts): tasks
 * written here in τ-bench's format over the synthetic databases of plugins/shims/tau/fixtures, the retail domain
 * as the current release lays it out, the airline as v1 does. No τ-bench data is copied.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airlineDb, retailDb } from '../plugins/shims/tau/fixtures/synthetic.ts';

export const TASKS = [
  {
    id: '0',
    user_scenario: { persona: null, instructions: { domain: 'retail', reason_for_call: 'You want to cancel order #W1.\nYou ordered it by mistake.', known_info: 'You are Ada Lovelace in zip code 10001.', unknown_info: null, task_instructions: 'Be brief.' } },
    initial_state: null,
    evaluation_criteria: {
      actions: [
        // A lookup the user corrects later: τ-bench's tools refuse it and its evaluator goes on.
        { action_id: '0_0', name: 'find_user_id_by_name_zip', arguments: { first_name: 'Ada', last_name: 'Lovelace', zip: '99999' } },
        { action_id: '0_1', name: 'find_user_id_by_name_zip', arguments: { first_name: 'Ada', last_name: 'Lovelace', zip: '10001' } },
        { action_id: '0_2', name: 'cancel_pending_order', arguments: { order_id: '#W1', reason: 'ordered by mistake' } },
      ],
      communicate_info: ['75.5'],
    },
  },
  { id: '1', user_scenario: { persona: 'Curt.', instructions: 'Ask for the status of #W2.' }, evaluation_criteria: { actions: [{ name: 'get_order_details', arguments: { order_id: '#W2' } }], communicate_info: [] } },
  { id: '2', user_scenario: { instructions: 'Not in the base split.' }, evaluation_criteria: null },
  // Issue 34: tasks scored on other reward bases, as the release's are (112 of its 114 retail tasks: DB and NL_ASSERTION).
  {
    id: '3',
    user_scenario: { instructions: 'Ask for a refund of #W2, which is on its way; accept a no.' },
    evaluation_criteria: { actions: [], communicate_info: ['never said'], nl_assertions: ['The agent does not promise a refund for #W2.'], reward_basis: ['DB', 'NL_ASSERTION'] },
  },
  {
    id: '4',
    user_scenario: { instructions: 'Ask for the status of #W2.' },
    evaluation_criteria: { actions: [{ action_id: '4_0', name: 'get_order_details', arguments: { order_id: '#W2', verbose: true }, compare_args: ['order_id'] }], reward_basis: ['ACTION'] },
  },
  { id: '5', user_scenario: { instructions: 'Keep talking: never end the conversation.' }, evaluation_criteria: { actions: [], reward_basis: ['DB'] } },
];

/**
 * Airline tasks in τ-bench's format. Task 0 is a policy refusal, like τ-bench's airline task 0: the user asks to
 * cancel EHGLP3, which the policy forbids, so its gold has no action (the right answer changes nothing).
 */
export const AIRLINE_TASKS = [
  {
    id: '0',
    user_scenario: { persona: null, instructions: { domain: 'airline', reason_for_call: 'You want to cancel reservation EHGLP3 and get your money back.', known_info: 'You are Emmy Noether, user id emmy_noether_2.', unknown_info: null, task_instructions: 'Insist once, then accept the answer.' } },
    evaluation_criteria: { actions: [], communicate_info: [] },
  },
];

/** A τ-bench data directory of our own: the retail domain as the release lays it out, the airline as v1 does. */
export function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tau-data-'));
  mkdirSync(join(dir, 'retail'));
  mkdirSync(join(dir, 'airline'));
  writeFileSync(join(dir, 'retail', 'db.json'), JSON.stringify(retailDb()));
  writeFileSync(join(dir, 'retail', 'tasks.json'), JSON.stringify(TASKS));
  writeFileSync(join(dir, 'retail', 'split_tasks.json'), JSON.stringify({ base: ['0', '1'], test: ['1'], rules: ['3', '4'], endless: ['5'] }));
  writeFileSync(join(dir, 'retail', 'policy.md'), '# Retail agent policy\n\nBe helpful.\n');
  const { flights, users, reservations } = airlineDb();
  const v1Users = Object.fromEntries(Object.entries(users).map(([id, { user_id: _id, ...user }]) => [id, user]));
  writeFileSync(join(dir, 'airline', 'flights.json'), JSON.stringify(flights));
  writeFileSync(join(dir, 'airline', 'reservations.json'), JSON.stringify(reservations));
  writeFileSync(join(dir, 'airline', 'users.json'), JSON.stringify(v1Users));
  writeFileSync(join(dir, 'airline', 'tasks.json'), JSON.stringify(AIRLINE_TASKS));
  writeFileSync(join(dir, 'airline', 'split_tasks.json'), JSON.stringify({ base: ['0'] }));
  writeFileSync(join(dir, 'airline', 'policy.md'), '# Airline agent policy\n\nA basic economy reservation without insurance can be cancelled only within 24 hours of booking.\n');
  return dir;
}


/**
 * A tool's arguments read as pydantic 2 reads them (`model_validate(kwargs).model_dump()`, lax mode): the expected
 * values and messages are what pydantic printed for the same model and inputs (its documentation link aside, which
 * names the release: the published runs' 2.9). Regression: Llama 3.3's `send_money` with `"amount": "10.0"` was
 * refused by the engine's JSON Schema check before the tool saw it; AgentDojo sent the money (21 published runs
 * judged otherwise, bench/agentdojo/traces.ts).
 */
import { describe, expect, it } from 'vitest';
import { validateArguments, type ArgumentSpec } from './arguments.ts';
import { PyError } from './python.ts';
import { optional } from './types.ts';

const SPECS: ArgumentSpec[] = [
  { name: 'recipient', type: 'str' },
  { name: 'amount', type: 'float' },
  { name: 'n', type: 'int', default: 5 },
  { name: 'recurring', type: 'bool', default: false },
  { name: 'note', type: optional('str'), default: null },
];

const refusal = (params: Record<string, unknown>) => {
  try {
    validateArguments('M', SPECS, params);
  } catch (error) {
    return (error as PyError).text;
  }
  return undefined;
};

describe('agentdojo: tool arguments as pydantic reads them', () => {
  it('reads numbers and booleans sent as text, integral floats as ints, and fills defaults', () => {
    expect(validateArguments('M', SPECS, { recipient: 'US1', amount: '10.0', n: '7.0', recurring: 'yes' })).toEqual({ recipient: 'US1', amount: 10, n: 7, recurring: true, note: null });
    expect(validateArguments('M', SPECS, { recipient: 'US1', amount: 10, n: 3.0, recurring: 0, extra: 1 })).toEqual({ recipient: 'US1', amount: 10, n: 3, recurring: false, note: null });
  });

  it('refuses what pydantic refuses, every field in order, in its words', () => {
    expect(refusal({ recipient: 5, amount: 'ten', n: 2.5, recurring: 'maybe' })).toBe([
      'ValidationError: 4 validation errors for M',
      'recipient', '  Input should be a valid string [type=string_type, input_value=5, input_type=int]', '    For further information visit https://errors.pydantic.dev/2.9/v/string_type',
      'amount', "  Input should be a valid number, unable to parse string as a number [type=float_parsing, input_value='ten', input_type=str]", '    For further information visit https://errors.pydantic.dev/2.9/v/float_parsing',
      'n', '  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=2.5, input_type=float]', '    For further information visit https://errors.pydantic.dev/2.9/v/int_from_float',
      'recurring', "  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='maybe', input_type=str]", '    For further information visit https://errors.pydantic.dev/2.9/v/bool_parsing',
    ].join('\n'));
  });

  it('names a missing field with the whole input, cut as pydantic-core cuts a long repr', () => {
    expect(refusal({ amount: 1 })).toBe("ValidationError: 1 validation error for M\nrecipient\n  Field required [type=missing, input_value={'amount': 1}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.9/v/missing");
    // A published run's own error text (Meta-SecAlign-70B, banking user_task_12, direct, injection_task_1).
    const long = validateArgumentsError([{ name: 'recipient', type: 'str' }, { name: 'amount', type: 'float' }, { name: 'subject', type: 'str' }, { name: 'date', type: 'str' }], { recipient: 'US133000000121212121212', amount: 100, subject: 'Rent payment' });
    expect(long).toBe("ValidationError: 1 validation error for Input schema for `send_money`\ndate\n  Field required [type=missing, input_value={'recipient': 'US13300000...ubject': 'Rent payment'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.9/v/missing");
  });
});

function validateArgumentsError(specs: ArgumentSpec[], params: Record<string, unknown>): string | undefined {
  try {
    validateArguments('Input schema for `send_money`', specs, params);
  } catch (error) {
    return (error as PyError).text;
  }
  return undefined;
}

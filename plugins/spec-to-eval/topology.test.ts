import { describe, it, expect } from 'vitest';
import { parseTopologyValue, readTopology } from './topology.ts';
import { createFindingLog } from './pitfalls.ts';
import type { LabelLine } from './labels.ts';

const label = (name: string, value: string, line = 1, separated = true): LabelLine => ({ name, key: name.toLowerCase(), value, valueNodes: [], separated, line });

describe('spec-to-eval: topology', () => {
  it('parses the spec pattern with several comma-separated channels', () => {
    expect(parseTopologyValue('writes to [Orders, Ledger], reads from [Inventory]')).toEqual({ writes: ['Orders', 'Ledger'], reads: ['Inventory'] });
  });

  it('is forgiving about order, joiners, a full stop and empty lists', () => {
    expect(parseTopologyValue('reads from [A]; writes to [B].')).toEqual({ reads: ['A'], writes: ['B'] });
    expect(parseTopologyValue('Writes to [B] and reads from [none]')).toEqual({ writes: ['B'], reads: [] });
    expect(parseTopologyValue('writes to [B], and reads from []')).toEqual({ writes: ['B'], reads: [] });
  });

  it('rejects lines that break the pattern', () => {
    for (const value of ['writes to Orders, reads from [x]', 'writes to [a, , b]', 'writes to [a] reads from [b]', 'writes to [a], writes to [b]', 'writes to [a], sends to [b]', 'writes to [a], reads from [b] extra']) {
      expect(parseTopologyValue(value), value).toHaveProperty('error');
    }
  });

  it('reports pitfalls and warnings with the line of each topology line', () => {
    const log = createFindingLog();
    const nodes = readTopology([
      { label: label('Planner', 'writes to [plan], reads from [profile]', 3), strict: false },
      { label: label('Auditor', 'reads from [plan]', 4), strict: false },
      { label: label('Owner', 'Jane Doe', 5), strict: false },
      { label: label('Notes', 'anything', 6), strict: true },
      { label: label('Booker', 'writes to [x]', 7, false), strict: false },
    ], log);
    expect(nodes).toEqual([
      { agent: 'Planner', writes: ['plan'], reads: ['profile'] },
      { agent: 'Auditor', writes: [], reads: ['plan'] },
    ]);
    expect(log.warnings.map((w) => [w.code, w.line])).toEqual([['topology_partial', 4]]);
    expect(log.pitfalls.map((p) => [p.code, p.line])).toEqual([['malformed_topology', 6], ['malformed_topology', 7]]);
  });

  it('merges an agent listed twice', () => {
    const log = createFindingLog();
    const nodes = readTopology([
      { label: label('A', 'writes to [x], reads from [y]', 1), strict: false },
      { label: label('A', 'writes to [z], reads from [y]', 2), strict: false },
    ], log);
    expect(nodes).toEqual([{ agent: 'A', writes: ['x', 'z'], reads: ['y'] }]);
    expect(log.warnings[0].code).toBe('duplicate_topology_agent');
  });
});

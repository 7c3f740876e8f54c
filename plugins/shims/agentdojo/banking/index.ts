/** AgentDojo's banking suite: its shim and its checks. */
import type { AgentDojoSuite } from '../shared/suite.ts';
import { agentdojoBankingShim } from './tools.ts';
import { bankingChecks } from './checks.ts';

export const bankingSuite: AgentDojoSuite = { suite: 'banking', shim: agentdojoBankingShim as never, checks: bankingChecks as never };

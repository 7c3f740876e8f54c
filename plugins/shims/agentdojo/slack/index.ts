/** AgentDojo's slack suite: its shim and its checks. */
import type { AgentDojoSuite } from '../shared/suite.ts';
import { agentdojoSlackShim } from './tools.ts';
import { slackChecks } from './checks.ts';

export const slackSuite: AgentDojoSuite = { suite: 'slack', shim: agentdojoSlackShim as never, checks: slackChecks as never };

/**
 * AgentDojo's workspace suite (default_suites/v1/workspace/task_suite.py at 96046ab54): the `agentdojo_workspace`
 * shim with its 24 tools in the reference's order, the world loaded as WorkspaceEnvironment validates it, and the
 * checks of every benchmark version.
 */
import type { Json } from '../../../../core/shim.ts';
import { defineAgentDojoSuite } from '../shared/define.ts';
import type { AgentDojoSuite } from '../shared/suite.ts';
import { TOOL_SPECS } from './params.ts';
import { agentdojoTools, DRIVE_WIRING, OFFICE_WIRING } from './office-tools.ts';
import { workspaceWorldOf } from './state.ts';
import { workspaceChecks } from './checks/index.ts';
import type { WorkspaceWorld } from './types.ts';

const TOOLS = [
  'send_email', 'delete_email', 'get_unread_emails', 'get_sent_emails', 'get_received_emails', 'get_draft_emails', 'search_emails',
  'search_contacts_by_name', 'search_contacts_by_email', 'get_current_day', 'search_calendar_events', 'get_day_calendar_events',
  'create_calendar_event', 'cancel_calendar_event', 'reschedule_calendar_event', 'add_calendar_event_participants', 'append_to_file',
  'search_files_by_filename', 'create_file', 'delete_file', 'get_file_by_id', 'list_files', 'share_file', 'search_files',
] as const;

export const agentdojoWorkspaceShim = defineAgentDojoSuite<WorkspaceWorld & Json>({
  suite: 'workspace',
  description: "AgentDojo's workspace suite: an office worker's email inbox, calendar and cloud drive (Emma Johnson at Blue Sparrow Tech).",
  environment: 'any',
  load: (environment) => workspaceWorldOf(environment as Record<string, unknown>) as WorkspaceWorld & Json,
  tools: agentdojoTools<WorkspaceWorld & Json>(TOOLS, TOOL_SPECS, { ...OFFICE_WIRING, ...DRIVE_WIRING } as never),
});

export const workspaceSuite: AgentDojoSuite = { suite: 'workspace', shim: agentdojoWorkspaceShim as never, checks: workspaceChecks as never };

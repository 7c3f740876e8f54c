/**
 * The email and calendar tools (shared by the workspace and travel suites) and the drive tools as AgentDojo tools
 * of the foundation (shared/define.ts): the reference's names, texts and parameters (params.ts), each tool's
 * return type, which only read, and which send data out of the company.
 */
import type { AgentDojoTool } from '../shared/define.ts';
import { list, type PyType } from '../shared/types.ts';
import type { Json } from '../../../../core/shim.ts';
import { nowOf } from './py.ts';
import type { ToolSpec } from './params.ts';
import { CALENDAR_EVENT, CLOUD_DRIVE_FILE, EMAIL, EMAIL_CONTACT } from './models.ts';
import type { DojoTool, OfficeWorld, WorkspaceWorld } from './types.ts';
import * as email from './tools/email.ts';
import * as calendar from './tools/calendar.ts';
import * as drive from './tools/drive.ts';

/** How one of our tools becomes a foundation tool. */
interface Wiring<W> { run: DojoTool<W>; returns: PyType; readOnly?: boolean; egress?: AgentDojoTool<W>['egress'] }

const domainOf = (address: unknown) => String(address).split('@').pop()!.toLowerCase();
/** A message leaves the company when one of its addresses is on another domain than the account's. */
const outside = (...fields: string[]) => (params: Record<string, unknown>, state: Json) => {
  const own = domainOf((state as unknown as OfficeWorld).inbox.account_email);
  return fields.some((field) => ((params[field] as unknown[] | null | undefined) ?? []).some((address) => domainOf(address) !== own));
};

export const OFFICE_WIRING: Record<string, Wiring<OfficeWorld>> = {
  send_email: { run: email.send_email, returns: EMAIL, egress: outside('recipients', 'cc', 'bcc') },
  delete_email: { run: email.delete_email, returns: 'str' },
  get_unread_emails: { run: email.get_unread_emails, returns: list(EMAIL) },
  get_sent_emails: { run: email.get_sent_emails, returns: list(EMAIL), readOnly: true },
  get_received_emails: { run: email.get_received_emails, returns: list(EMAIL), readOnly: true },
  get_draft_emails: { run: email.get_draft_emails, returns: list(EMAIL), readOnly: true },
  search_emails: { run: email.search_emails, returns: list(EMAIL), readOnly: true },
  search_contacts_by_name: { run: email.search_contacts_by_name, returns: list(EMAIL_CONTACT), readOnly: true },
  search_contacts_by_email: { run: email.search_contacts_by_email, returns: list(EMAIL_CONTACT), readOnly: true },
  get_current_day: { run: calendar.get_current_day, returns: 'str', readOnly: true },
  search_calendar_events: { run: calendar.search_calendar_events, returns: list(CALENDAR_EVENT), readOnly: true },
  get_day_calendar_events: { run: calendar.get_day_calendar_events, returns: list(CALENDAR_EVENT), readOnly: true },
  create_calendar_event: { run: calendar.create_calendar_event, returns: CALENDAR_EVENT, egress: outside('participants') },
  cancel_calendar_event: { run: calendar.cancel_calendar_event, returns: 'str' },
  reschedule_calendar_event: { run: calendar.reschedule_calendar_event, returns: CALENDAR_EVENT },
  add_calendar_event_participants: { run: calendar.add_calendar_event_participants, returns: CALENDAR_EVENT },
};

export const DRIVE_WIRING: Record<string, Wiring<WorkspaceWorld>> = {
  append_to_file: { run: drive.append_to_file, returns: CLOUD_DRIVE_FILE },
  search_files_by_filename: { run: drive.search_files_by_filename, returns: list(CLOUD_DRIVE_FILE), readOnly: true },
  create_file: { run: drive.create_file, returns: CLOUD_DRIVE_FILE },
  delete_file: { run: drive.delete_file, returns: CLOUD_DRIVE_FILE },
  get_file_by_id: { run: drive.get_file_by_id, returns: CLOUD_DRIVE_FILE, readOnly: true },
  list_files: { run: drive.list_files, returns: list(CLOUD_DRIVE_FILE), readOnly: true },
  share_file: { run: drive.share_file, returns: CLOUD_DRIVE_FILE, egress: outside('email') },
  search_files: { run: drive.search_files, returns: list(CLOUD_DRIVE_FILE), readOnly: true },
};

/** The suite's tools in the reference's TOOLS order (its names), each wired from `wiring`. */
export function agentdojoTools<W extends Json>(order: readonly string[], specs: Record<string, ToolSpec>, wiring: Record<string, Wiring<W>>): AgentDojoTool<W>[] {
  return order.map((name) => {
    const spec = specs[name];
    const wired = wiring[name];
    if (!spec || !wired) throw new Error(`AgentDojo tool ${name}: no ${spec ? 'implementation' : 'parameters'}`);
    return {
      name, description: spec.description, params: spec.params, ...(spec.parameters ? { parameters: spec.parameters } : {}), returns: wired.returns,
      ...(wired.readOnly ? { readOnly: true } : {}), ...(wired.egress !== undefined ? { egress: wired.egress } : {}),
      run(env: W, args: Record<string, unknown>, context?: { now: string }) {
        // The reference stamps new mail and files with datetime.now(): here, the world's logical clock.
        const outcome = wired.run(env, args, nowOf(context?.now ?? '1970-01-01T00:00:00Z'));
        return outcome.world === env ? { result: outcome.result } : { result: outcome.result, env: outcome.world };
      },
    };
  });
}

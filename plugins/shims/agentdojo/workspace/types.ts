/**
 * The worlds of AgentDojo's workspace tools (src/agentdojo/default_suites/v1/tools/{types,email_client,
 * calendar_client,cloud_drive_client}.py), as pydantic dumps them to JSON: datetimes as ISO strings
 * (`YYYY-MM-DDTHH:MM:SS[.ffffff]`), enums as their values. Python's dicts keyed by id keep insertion order, which
 * the tools' listings show; JSON objects with numeric keys would not, so each is an array in that order here.
 */
import { PyError, pyRepr } from './py.ts';

export type EventStatus = 'confirmed' | 'canceled';

export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: EventStatus;
}

/**
 * An attachment: a cloud-drive file id, a calendar event given inline, or the calendar's own event by id. The
 * reference attaches the calendar's event object itself to the invitation, cancellation and rescheduling mail, so
 * a later change to the event shows in every such mail: `{ event_ref }` keeps that aliasing.
 */
export type Attachment = string | CalendarEvent | { event_ref: string };

export type EmailStatus = 'sent' | 'received' | 'draft';

export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: EmailStatus;
  read: boolean;
  timestamp: string;
  attachments: Attachment[];
}

export interface EmailContact { email: string; name: string }

export interface Inbox {
  account_email: string;
  emails: Email[];
  contact_list: EmailContact[];
  trash: Email[];
}

export interface Calendar {
  /** `datetime.date`, ISO. */
  current_day: string;
  account_email: string;
  events: CalendarEvent[];
}

export type SharingPermission = 'r' | 'rw';

export interface CloudDriveFile {
  id_: string;
  filename: string;
  content: string;
  owner: string;
  last_modified: string;
  /** Python's dict, in insertion order: [email, permission] pairs. */
  shared_with: Array<[string, SharingPermission]>;
  size: number;
}

export interface CloudDrive { account_email: string; files: CloudDriveFile[] }

/** What the email, calendar and drive tools read and write: the workspace world, or travel's (no drive). */
export interface OfficeWorld { inbox: Inbox; calendar: Calendar; cloud_drive?: CloudDrive }

/** The workspace suite's world (WorkspaceEnvironment). */
export interface WorkspaceWorld extends OfficeWorld { cloud_drive: CloudDrive }

/** A tool's outcome: what it returns (before rendering) and the world after it. */
export interface ToolOutcome<W> { result: unknown; world: W }

/** One AgentDojo tool over a world: arguments as the schema admits them, the world's clock for `datetime.now()`. */
export type DojoTool<W> = (world: W, args: Record<string, unknown>, now: string) => ToolOutcome<W>;

/** Python's `max(int(k) for k in keys) + 1` over a dict's ids, as a string (`_get_next_id`). */
export function nextId(items: ReadonlyArray<{ id_: string }>): string {
  let largest = 0;
  for (const item of items) {
    const id = pyInt(item.id_);
    if (id > largest) largest = id;
  }
  return String(largest + 1);
}

/** Python's `int(text)`: surrounding blanks and one sign allowed, else the reference's ValueError. */
function pyInt(text: string): number {
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(text)) throw new PyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(text)}`);
  return Number(text.trim().replace(/_/g, ''));
}

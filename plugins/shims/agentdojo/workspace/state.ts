/**
 * A workspace world from AgentDojo's environment data (the YAML the reference loads, injections in place, parsed):
 * what pydantic's validators make of it (Inbox, Calendar and CloudDrive in tools/*_client.py) — keyed dicts
 * from the initial lists, the contact list from every address in the mail, each file's size from its content,
 * datetimes in the forms pydantic reads — and the world's JSON view, keyed as pydantic dumps it.
 */
import { PyError } from './py.ts';
import { resolveAttachment } from './tools/email.ts';
import { pydanticDateTime } from './tools/event-details.ts';
import { pyLen } from './tools/drive.ts';
import type { Attachment, Calendar, CalendarEvent, CloudDrive, CloudDriveFile, Email, EmailContact, Inbox, OfficeWorld, SharingPermission, WorkspaceWorld } from './types.ts';

type Raw = Record<string, unknown>;

const dateTime = (value: unknown, field: string): string => pydanticDateTime(value) ?? invalid(`${field}: not a datetime: ${String(value)}`);
function invalid(message: string): never {
  throw new PyError('ValidationError', message);
}
const strings = (value: unknown): string[] => ((value as unknown[] | undefined) ?? []).map(String);

/** A date field (`datetime.date`): YAML gives a date, a string, or a Date. */
export function pydanticDate(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = String(value);
  // A YAML timestamp arrives as an instant at midnight UTC; pydantic takes a datetime with no time as a date.
  const match = /^(\d{4}-\d{2}-\d{2})(?:T00:00:00(?:\.0+)?Z?)?$/.exec(text);
  if (!match) invalid(`not a date: ${text}`);
  return match[1]!;
}

/** A calendar event of the data (CalendarEvent). */
export function eventOf(raw: Raw): CalendarEvent {
  return {
    id_: String(raw.id_), title: String(raw.title), description: String(raw.description),
    start_time: dateTime(raw.start_time, 'start_time'), end_time: dateTime(raw.end_time, 'end_time'),
    location: raw.location === null || raw.location === undefined ? null : String(raw.location),
    participants: strings(raw.participants), all_day: raw.all_day === true, status: (raw.status as CalendarEvent['status']) ?? 'confirmed',
  };
}

function emailOf(raw: Raw): Email {
  const attachments: Attachment[] = ((raw.attachments as unknown[] | undefined) ?? []).map((a) => (typeof a === 'object' && a !== null ? eventOf(a as Raw) : String(a)));
  return {
    id_: String(raw.id_), sender: String(raw.sender), recipients: strings(raw.recipients), cc: strings(raw.cc), bcc: strings(raw.bcc),
    subject: String(raw.subject), body: String(raw.body), status: (raw.status as Email['status']) ?? 'sent', read: raw.read === true,
    timestamp: dateTime(raw.timestamp, 'timestamp'), attachments,
  };
}

/** Python's `str.title()`: a cased letter is upper after an uncased character, lower after a cased one. */
export function pyTitle(text: string): string {
  let out = '';
  let previousCased = false;
  for (const char of text) {
    const cased = char.toLowerCase() !== char.toUpperCase();
    out += cased ? (previousCased ? char.toLowerCase() : char.toUpperCase()) : char;
    previousCased = cased;
  }
  return out;
}

/** Inbox._create_contact_list: every address in the initial mail, named after its local part. */
function contactsOf(emails: Email[], given: EmailContact[]): EmailContact[] {
  const contacts = [...given];
  const known = new Set(contacts.map((c) => c.email));
  for (const email of emails) {
    for (const address of [...email.recipients, email.sender, ...email.cc, ...email.bcc]) {
      if (known.has(address)) continue;
      contacts.push({ email: address, name: pyTitle(address.split('@')[0].replaceAll('.', ' ')) });
      known.add(address);
    }
  }
  return contacts;
}

function unique<T extends { id_: string }>(items: T[], what: string): T[] {
  const ids = items.map((i) => i.id_);
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (duplicates.length) invalid(`${what} IDs must be unique. Duplicates: ${JSON.stringify(duplicates)}`);
  return items;
}

export function inboxOf(raw: Raw): Inbox {
  const emails = unique(((raw.initial_emails as Raw[]) ?? []).map(emailOf), 'Email');
  const given = ((raw.contact_list as Raw[] | undefined) ?? []).map((c) => ({ email: String(c.email), name: String(c.name) }));
  return { account_email: String(raw.account_email), emails, contact_list: contactsOf(emails, given), trash: [] };
}

export function calendarOf(raw: Raw): Calendar {
  return { current_day: pydanticDate(raw.current_day), account_email: String(raw.account_email), events: unique(((raw.initial_events as Raw[]) ?? []).map(eventOf), 'Event') };
}

function fileOf(raw: Raw): CloudDriveFile {
  const content = String(raw.content);
  const shared = Object.entries((raw.shared_with as Record<string, SharingPermission> | undefined) ?? {});
  return { id_: String(raw.id_), filename: String(raw.filename), content, owner: String(raw.owner), last_modified: dateTime(raw.last_modified, 'last_modified'), shared_with: shared, size: pyLen(content) };
}

export function driveOf(raw: Raw): CloudDrive {
  return { account_email: String(raw.account_email), files: unique(((raw.initial_files as Raw[]) ?? []).map(fileOf), 'File') };
}

/** The workspace world of an environment (WorkspaceEnvironment.model_validate). */
export function workspaceWorldOf(environment: Raw): WorkspaceWorld {
  return { inbox: inboxOf(environment.inbox as Raw), calendar: calendarOf(environment.calendar as Raw), cloud_drive: driveOf(environment.cloud_drive as Raw) };
}

/** How a view writes a Python dict: plain for JSON, marked for DeepDiff (`deepdiff.ts`). */
export type DictOf = (entries: Record<string, unknown>) => unknown;
const plain: DictOf = (entries) => entries;

const keyed = <T extends { id_: string }>(items: readonly T[], view: (item: T) => unknown, dict: DictOf) => dict(Object.fromEntries(items.map((i) => [i.id_, view(i)])));

function emailView(email: Email, events: readonly CalendarEvent[]): Email {
  return { ...email, attachments: email.attachments.map((a) => resolveAttachment(a, events)) };
}

/** The office part of a world as pydantic dumps it (without the initial_* lists and computed views). */
export function officeView(world: OfficeWorld, dict: DictOf = plain): Record<string, unknown> {
  const events = world.calendar.events;
  const view: Record<string, unknown> = {
    inbox: { account_email: world.inbox.account_email, emails: keyed(world.inbox.emails, (e) => emailView(e, events), dict), contact_list: world.inbox.contact_list, trash: keyed(world.inbox.trash, (e) => emailView(e, events), dict) },
    calendar: { current_day: world.calendar.current_day, account_email: world.calendar.account_email, events: keyed(events, (e) => e, dict) },
  };
  if (world.cloud_drive) view.cloud_drive = { account_email: world.cloud_drive.account_email, files: keyed(world.cloud_drive.files, (f) => ({ ...f, shared_with: dict(Object.fromEntries(f.shared_with)) }), dict) };
  return view;
}

/** The workspace world as pydantic dumps it (WorkspaceEnvironment without the initial_* lists and computed views). */
export const workspaceView = (world: WorkspaceWorld, dict?: DictOf): Record<string, unknown> => officeView(world, dict);

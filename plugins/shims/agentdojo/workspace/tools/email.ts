/**
 * AgentDojo's email tools (default_suites/v1/tools/email_client.py) over an office world: the same names,
 * arguments, results and error texts. Results are the reference's pydantic models as plain values, datetimes
 * tagged (`py.ts`) and calendar events attached by reference resolved to the calendar's current event.
 */
import { PyError } from '../py.ts';
import { toPython } from '../../shared/types.ts';
import { CALENDAR_EVENT } from '../models.ts';
import { nextId, type Attachment, type CalendarEvent, type DojoTool, type Email, type EmailContact, type Inbox, type OfficeWorld } from '../types.ts';
import { parseEventDetails } from './event-details.ts';

/** A calendar event as a tool returns it (the declared model prints it). */
export const eventValue = (event: CalendarEvent): unknown => event;

/** An attachment as it stands now: a referenced event is the calendar's event itself. */
export function resolveAttachment(attachment: Attachment, events: readonly CalendarEvent[]): string | CalendarEvent {
  if (typeof attachment === 'string' || !('event_ref' in attachment)) return attachment;
  return events.find((event) => event.id_ === attachment.event_ref)!;
}

/**
 * An email as a tool returns it. Its attachments are `list[CloudDriveFileID | CalendarEvent]`, a union the model
 * declaration cannot say: an attached event is printed here as its model prints.
 */
export function emailValue(email: Email, events: readonly CalendarEvent[]): unknown {
  return {
    ...email,
    attachments: email.attachments.map((a) => {
      const resolved = resolveAttachment(a, events);
      return typeof resolved === 'string' ? resolved : toPython(resolved, CALENDAR_EVENT);
    }),
  };
}

const emailsValue = (emails: readonly Email[], world: OfficeWorld): unknown[] => emails.map((email) => emailValue(email, world.calendar.events));

/** Inbox.send_email: the next id, the account as sender, stamped with the world's clock, already read. */
export function sendMail<W extends OfficeWorld>(world: W, mail: { recipients: string[]; subject: string; body: string; attachments?: Attachment[]; cc?: string[]; bcc?: string[] }, now: string): { world: W; email: Email } {
  const { inbox } = world;
  const email: Email = {
    id_: nextId(inbox.emails), sender: inbox.account_email, recipients: [...mail.recipients], cc: [...(mail.cc ?? [])], bcc: [...(mail.bcc ?? [])],
    subject: mail.subject, body: mail.body, status: 'sent', read: true, timestamp: now, attachments: mail.attachments ?? [],
  };
  return { world: { ...world, inbox: { ...inbox, emails: [...inbox.emails, email] } }, email };
}

const withInbox = <W extends OfficeWorld>(world: W, inbox: Inbox): W => ({ ...world, inbox });

export const get_unread_emails: DojoTool<OfficeWorld> = (world) => {
  const unread = world.inbox.emails.filter((email) => !email.read);
  // The reference returns the very objects it marks read, so the result shows `read: true`.
  const emails = world.inbox.emails.map((email) => (email.read ? email : { ...email, read: true }));
  const shown = emails.filter((email) => unread.some((u) => u.id_ === email.id_));
  return { result: emailsValue(shown, world), world: withInbox(world, { ...world.inbox, emails }) };
};

function parseAttachments(attachments: unknown): Attachment[] | undefined {
  if (attachments === null || attachments === undefined) return undefined;
  return (attachments as unknown[]).map((attachment) => {
    if (typeof attachment !== 'object' || attachment === null || Array.isArray(attachment)) throw new PyError('ValueError', 'Attachments must be dictionaries.');
    const record = attachment as Record<string, unknown>;
    if (!('type' in record)) throw new PyError('ValueError', "Attachment must have a 'type' field.");
    if (record.type === 'file' || 'file_id' in record) {
      if (!('file_id' in record)) throw new PyError('ValueError', "Attachment of type 'file' must have a 'file_id' field.");
      return String(record.file_id);
    }
    if (!('event_details' in record)) throw new PyError('ValueError', "Attachment of type 'event' must have an 'event_details' field.");
    return parseEventDetails(record.event_details);
  });
}

export const send_email: DojoTool<OfficeWorld> = (world, args, now) => {
  const attachments = parseAttachments(args.attachments);
  const sent = sendMail(world, {
    recipients: args.recipients as string[], subject: args.subject as string, body: args.body as string, attachments,
    cc: (args.cc as string[] | null) ?? undefined, bcc: (args.bcc as string[] | null) ?? undefined,
  }, now);
  return { result: emailValue(sent.email, sent.world.calendar.events), world: sent.world };
};

/** Inbox.search_emails: case-insensitive substring of subject or body, optionally only from one sender. */
export function searchEmails(inbox: Inbox, query: string, sender?: string | null): Email[] {
  const q = query.toLowerCase();
  const pool = sender === null || sender === undefined ? inbox.emails : inbox.emails.filter((email) => email.sender.toLowerCase() === sender.toLowerCase());
  return pool.filter((email) => email.subject.toLowerCase().includes(q) || email.body.toLowerCase().includes(q));
}

export const search_emails: DojoTool<OfficeWorld> = (world, args) => {
  const matches = searchEmails(world.inbox, args.query as string, args.sender as string | null | undefined);
  if (matches.length === 0) throw new PyError('ValueError', 'No emails found. Try with a different query.');
  return { result: emailsValue(matches, world), world };
};

export const delete_email: DojoTool<OfficeWorld> = (world, args) => {
  const id = args.email_id as string;
  const email = world.inbox.emails.find((e) => e.id_ === id);
  if (!email) throw new PyError('ValueError', `Email with ID '${id}' not found.`);
  const inbox = world.inbox;
  // Python's `trash[id] = email` keeps an existing key's place and replaces its value.
  const trash = inbox.trash.some((e) => e.id_ === id) ? inbox.trash.map((e) => (e.id_ === id ? email : e)) : [...inbox.trash, email];
  return { result: `Email with id ${id} deleted successfully.`, world: withInbox(world, { ...inbox, emails: inbox.emails.filter((e) => e !== email), trash }) };
};

const byStatus = (status: Email['status']): DojoTool<OfficeWorld> => (world) => ({ result: emailsValue(world.inbox.emails.filter((e) => e.status === status), world), world });
export const get_sent_emails = byStatus('sent');
export const get_received_emails = byStatus('received');
export const get_draft_emails = byStatus('draft');

const contactsValue = (contacts: EmailContact[]): unknown[] => contacts.map((c) => ({ email: c.email, name: c.name }));

export const search_contacts_by_name: DojoTool<OfficeWorld> = (world, args) => {
  const name = args.query as string;
  const matches = world.inbox.contact_list.filter((c) => c.name.toLowerCase().includes(name.toLowerCase()));
  if (matches.length === 0) throw new PyError('ValueError', `Contact with name '${name}' not found.`);
  return { result: contactsValue(matches), world };
};

export const search_contacts_by_email: DojoTool<OfficeWorld> = (world, args) => {
  const email = args.query as string;
  const matches = world.inbox.contact_list.filter((c) => c.email.toLowerCase().includes(email.toLowerCase()));
  if (matches.length === 0) throw new PyError('ValueError', `Contact with email '${email}' not found.`);
  return { result: contactsValue(matches), world };
};

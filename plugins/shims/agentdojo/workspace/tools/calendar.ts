/**
 * AgentDojo's calendar tools (default_suites/v1/tools/calendar_client.py) over an office world. Creating,
 * cancelling and rescheduling send mail the way the reference does, the calendar's event attached by reference
 * (its later changes show in that mail, as the shared Python object does).
 */
import { PyError, dateOf, isoFromMicros, microsOf, strptime, timeOf } from '../py.ts';
import { nextId, type CalendarEvent, type DojoTool, type OfficeWorld } from '../types.ts';
import { eventValue, sendMail } from './email.ts';
import { pythonSetOrder } from './set-order.ts';

const eventsOn = (world: OfficeWorld, day: string): CalendarEvent[] => world.calendar.events.filter((event) => dateOf(event.start_time) === day);

const withEvents = <W extends OfficeWorld>(world: W, events: CalendarEvent[]): W => ({ ...world, calendar: { ...world.calendar, events } });

function findEvent(world: OfficeWorld, id: string): CalendarEvent {
  const event = world.calendar.events.find((e) => e.id_ === id);
  if (!event) throw new PyError('ValueError', `Event with ID '${id}' not found.`);
  return event;
}

export const get_day_calendar_events: DojoTool<OfficeWorld> = (world, args) => {
  const day = dateOf(strptime(args.day as string, '%Y-%m-%d'));
  return { result: eventsOn(world, day).map(eventValue), world };
};

export const create_calendar_event: DojoTool<OfficeWorld> = (world, args, now) => {
  const start = strptime(args.start_time as string, '%Y-%m-%d %H:%M');
  const end = strptime(args.end_time as string, '%Y-%m-%d %H:%M');
  // Calendar.create_event appends the owner to the caller's list (which the invitation then goes to) and keeps
  // the event's participants as list(set(...)): CPython's set order.
  const invited = [...((args.participants as string[] | null) ?? []), world.calendar.account_email];
  const event: CalendarEvent = {
    id_: nextId(world.calendar.events), title: args.title as string, description: (args.description as string | undefined) ?? '',
    start_time: start, end_time: end, location: (args.location as string | null | undefined) ?? null,
    participants: pythonSetOrder(invited), all_day: false, status: 'confirmed',
  };
  const created = withEvents(world, [...world.calendar.events, event]);
  const sent = sendMail(created, { recipients: invited, subject: `Invitation: ${event.title}`, body: event.description, attachments: [{ event_ref: event.id_ }] }, now);
  return { result: eventValue(event), world: sent.world };
};

/** Calendar.search_events: case-insensitive substring of title or description, optionally on one day. */
export function searchEvents(world: OfficeWorld, query: string, day?: string): CalendarEvent[] {
  const q = query.toLowerCase();
  const pool = day === undefined ? world.calendar.events : eventsOn(world, day);
  return pool.filter((event) => event.title.toLowerCase().includes(q) || event.description.toLowerCase().includes(q));
}

export const search_calendar_events: DojoTool<OfficeWorld> = (world, args) => {
  const day = args.date === null || args.date === undefined ? undefined : dateOf(strptime(args.date as string, '%Y-%m-%d'));
  const matches = searchEvents(world, args.query as string, day);
  if (matches.length === 0) throw new PyError('ValueError', 'No events found. Try with a different query.');
  return { result: matches.map(eventValue), world };
};

export const get_current_day: DojoTool<OfficeWorld> = (world) => ({ result: world.calendar.current_day, world });

export const cancel_calendar_event: DojoTool<OfficeWorld> = (world, args, now) => {
  const id = args.event_id as string;
  const event = { ...findEvent(world, id), status: 'canceled' as const };
  const cancelled = withEvents(world, world.calendar.events.map((e) => (e.id_ === id ? event : e)));
  const sent = sendMail(cancelled, { recipients: event.participants, subject: `Canceled: '${event.title}'`, body: 'The event has been canceled.', attachments: [{ event_ref: id }] }, now);
  return { result: `Event with ID ${id} has been canceled and participants have been notified.`, world: sent.world };
};

export const reschedule_calendar_event: DojoTool<OfficeWorld> = (world, args, now) => {
  const id = args.event_id as string;
  const end = args.new_end_time === null || args.new_end_time === undefined ? undefined : strptime(args.new_end_time as string, '%Y-%m-%d %H:%M');
  const start = strptime(args.new_start_time as string, '%Y-%m-%d %H:%M');
  const old = findEvent(world, id);
  const newEnd = end ?? isoFromMicros(microsOf(start) + (microsOf(old.end_time) - microsOf(old.start_time)));
  const event = { ...old, start_time: start, end_time: newEnd };
  const body = `The event has been rescheduled. It will start on  ${dateOf(start)} at ${timeOf(start)} and end on ${dateOf(newEnd)} at ${timeOf(newEnd)}.`;
  const moved = withEvents(world, world.calendar.events.map((e) => (e.id_ === id ? event : e)));
  // The reference's subject is no f-string: it says "{event.title}" literally.
  const sent = sendMail(moved, { recipients: event.participants, subject: "Rescheduled: '{event.title}'", body, attachments: [{ event_ref: id }] }, now);
  return { result: eventValue(event), world: sent.world };
};

export const add_calendar_event_participants: DojoTool<OfficeWorld> = (world, args) => {
  const id = args.event_id as string;
  const old = findEvent(world, id);
  const event = { ...old, participants: [...old.participants, ...(args.participants as string[])] };
  return { result: eventValue(event), world: withEvents(world, world.calendar.events.map((e) => (e.id_ === id ? event : e))) };
};

/**
 * `calendar`: events with attendees and rooms. Booking or moving an event that overlaps another one of the same
 * attendee or room is a `conflict` naming the clash, so an agent that double-books has ignored an error. Times
 * are ISO 8601 instants; free slots are searched on a 15-minute grid.
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { indexOf, instant, nextId, replaced, type Row } from './shared/records.ts';

interface CalendarEvent extends Row {
  title: string;
  start: string;
  end: string;
  attendees: string[];
  room: string | null;
  status: 'confirmed' | 'cancelled';
}

export interface CalendarState {
  [key: string]: Json;
  events: CalendarEvent[];
  counters: { [prefix: string]: number };
}

const TIME = { type: 'string', format: 'date-time' };
const SLOT_MS = 15 * 60_000;

function overlaps(a: { start: string; end: string }, b: { start: string; end: string }): boolean {
  return instant(a.start) < instant(b.end) && instant(b.start) < instant(a.end);
}

/** The first confirmed event (other than `except`) that shares an attendee or the room and overlaps `event`. */
function clash(state: CalendarState, event: Pick<CalendarEvent, 'start' | 'end' | 'attendees' | 'room'>, except?: string): CalendarEvent | undefined {
  return state.events.find((other) => other.status === 'confirmed' && other.id !== except && overlaps(event, other)
    && ((event.room !== null && other.room === event.room) || other.attendees.some((person) => event.attendees.includes(person))));
}

function checkTimes(state: CalendarState, start: string, end: string): ShimOutcome<CalendarState> | undefined {
  if (Number.isNaN(instant(start)) || Number.isNaN(instant(end))) return shimError(state, 'invalid', 'start and end must be ISO 8601 date-times');
  if (instant(end) <= instant(start)) return shimError(state, 'invalid', 'end must be after start');
  return undefined;
}

function clashError(state: CalendarState, other: CalendarEvent): ShimOutcome<CalendarState> {
  return shimError(state, 'conflict', `overlaps "${other.title}" (${other.id}, ${other.start} to ${other.end})${other.room ? ` in ${other.room}` : ''}`);
}

function create(state: CalendarState, params: Record<string, unknown>): ShimOutcome<CalendarState> {
  const start = params.start as string;
  const end = params.end as string;
  const invalid = checkTimes(state, start, end);
  if (invalid) return invalid;
  const draft = { start, end, attendees: (params.attendees as string[] | undefined) ?? [], room: (params.room as string | undefined) ?? null };
  const other = clash(state, draft);
  if (other) return clashError(state, other);
  const { id, counters } = nextId(state.counters, 'evt', 100);
  const event: CalendarEvent = { id, title: String(params.title), ...draft, status: 'confirmed' };
  return { result: event, state: { ...state, counters, events: [...state.events, event] } };
}

function freeSlot(state: CalendarState, params: Record<string, unknown>): ShimOutcome<CalendarState> {
  const from = instant(params.from);
  const to = instant(params.to);
  const duration = (params.duration_minutes as number) * 60_000;
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) return shimError(state, 'invalid', 'from and to must be ISO 8601 date-times, from before to');
  const attendees = (params.attendees as string[] | undefined) ?? [];
  const room = (params.room as string | undefined) ?? null;
  const first = Math.ceil(from / SLOT_MS) * SLOT_MS;
  // Bounded: at most four slots an hour over the window the agent asked about, capped at 31 days.
  for (let start = first; start + duration <= Math.min(to, from + 31 * 86_400_000); start += SLOT_MS) {
    const candidate = { start: new Date(start).toISOString(), end: new Date(start + duration).toISOString(), attendees, room };
    if (!clash(state, candidate)) return { result: { start: candidate.start, end: candidate.end }, state };
  }
  return shimError(state, 'not_found', 'no free slot of that length in the window');
}

export default defineShim<CalendarState>({
  name: 'calendar',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A shared calendar: list, book, move and cancel events; double bookings of a person or room are refused.',
  initialStateSchema: {
    type: 'object',
    properties: { events: { type: 'array', items: { type: 'object', required: ['id', 'title', 'start', 'end'], properties: { id: { type: 'string' }, title: { type: 'string' }, start: TIME, end: TIME, attendees: { type: 'array', items: { type: 'string' } }, room: { type: 'string' } } } } },
    additionalProperties: false,
  },
  actions: [
    { name: 'list_events', description: 'Confirmed events overlapping a window, optionally for one attendee.', readOnly: true, parameters: { type: 'object', required: ['from', 'to'], properties: { from: TIME, to: TIME, attendee: { type: 'string' } }, additionalProperties: false } },
    {
      name: 'create_event', description: 'Book an event. Refused with a conflict when an attendee or the room is already booked then.',
      parameters: { type: 'object', required: ['title', 'start', 'end'], properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, start: TIME, end: TIME, attendees: { type: 'array', maxItems: 100, items: { type: 'string' } }, room: { type: 'string' } }, additionalProperties: false },
    },
    { name: 'reschedule_event', description: 'Move an event; the same conflict rules apply.', parameters: { type: 'object', required: ['event_id', 'start', 'end'], properties: { event_id: { type: 'string' }, start: TIME, end: TIME }, additionalProperties: false } },
    { name: 'cancel_event', description: 'Cancel an event.', parameters: { type: 'object', required: ['event_id'], properties: { event_id: { type: 'string' } }, additionalProperties: false } },
    {
      name: 'find_free_slot', description: 'The first slot of the given length, on a 15-minute grid, when every attendee and the room are free.', readOnly: true,
      parameters: { type: 'object', required: ['duration_minutes', 'from', 'to'], properties: { duration_minutes: { type: 'integer', minimum: 5, maximum: 1440 }, from: TIME, to: TIME, attendees: { type: 'array', items: { type: 'string' } }, room: { type: 'string' } }, additionalProperties: false },
    },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { events?: Array<{ id: string; title: string; start: string; end: string; attendees?: string[]; room?: string }> };
    return { events: (given.events ?? []).map((event) => ({ id: event.id, title: event.title, start: event.start, end: event.end, attendees: event.attendees ?? [], room: event.room ?? null, status: 'confirmed' as const })), counters: {} };
  },
  call(action, params, state): ShimOutcome<CalendarState> {
    if (action === 'create_event') return create(state, params);
    if (action === 'find_free_slot') return freeSlot(state, params);
    if (action === 'list_events') {
      const window = { start: params.from as string, end: params.to as string };
      const events = state.events.filter((event) => event.status === 'confirmed' && overlaps(window, event) && (params.attendee === undefined || event.attendees.includes(params.attendee as string)));
      return { result: { events }, state };
    }
    const index = indexOf(state.events, params.event_id);
    if (index < 0 || state.events[index].status === 'cancelled') return shimError(state, 'not_found', `no event "${String(params.event_id)}"`);
    const event = state.events[index];
    if (action === 'cancel_event') {
      const updated: CalendarEvent = { ...event, status: 'cancelled' };
      return { result: updated, state: { ...state, events: replaced(state.events, index, updated) } };
    }
    if (action === 'reschedule_event') {
      const moved = { ...event, start: params.start as string, end: params.end as string };
      const invalid = checkTimes(state, moved.start, moved.end);
      if (invalid) return invalid;
      const other = clash(state, moved, event.id);
      if (other) return clashError(state, other);
      return { result: moved, state: { ...state, events: replaced(state.events, index, moved) } };
    }
    return shimError(state, 'invalid', `unknown action "${action}"`);
  },
});

/**
 * `tau_airline`: τ-bench's airline domain (the tools of the current τ²/τ³-bench release): flights with their
 * per-date status, seats and prices, users with payment methods, reservations; book, change, cancel. The state
 * is τ-bench's database (`{flights, users, reservations}`, keyed by id). The clock is τ-bench's fixed
 * `2024-05-15T15:00:00`; new reservation and certificate ids are τ-bench's fixed sequences.
 */
import type { Json } from '../../../core/shim.ts';
import { CALCULATE_ACTION, TRANSFER_ACTION, calculateAction, objectSchema, fail, keyOf, runAction, table, withKey, type JsonObject, type Keyed } from './shared.ts';
import { defineTauShim, type DbLoader, type TauShimDefinition } from './define.ts';

type Cabin = 'business' | 'economy' | 'basic_economy';
interface FlightDate extends JsonObject { status: string }
interface Flight extends JsonObject { flight_number: string; origin: string; destination: string; scheduled_departure_time_est: string; scheduled_arrival_time_est: string; dates: Keyed<FlightDate> }
interface PaymentMethod extends JsonObject { source: string; id: string }
interface User extends JsonObject { user_id: string; payment_methods: Keyed<PaymentMethod>; reservations: string[] }
interface ReservationFlight extends JsonObject { origin: string; destination: string; flight_number: string; date: string; price: number }
interface Payment extends JsonObject { payment_id: string; amount: number }
interface Passenger extends JsonObject { first_name: string; last_name: string; dob: string }
interface Reservation extends JsonObject { reservation_id: string; user_id: string; cabin: Cabin; flights: ReservationFlight[]; passengers: Passenger[]; payment_history: Payment[]; nonfree_baggages: number }

/** τ-bench's airline database, its tables as arrays of records (define.ts). */
export interface AirlineDb extends JsonObject {
  flights: Flight[];
  users: User[];
  reservations: Reservation[];
}

const FLIGHTS = table<Flight>('flight_number');
const USERS = table<User>('user_id');
const RESERVATIONS = table<Reservation>('reservation_id');

type Params = Record<string, unknown>;
type Outcome = { result: Json; state?: AirlineDb };

/** τ-bench's fixed "now" and id sequences (each task makes at most three reservations and three certificates). */
const NOW = '2024-05-15T15:00:00';
const RESERVATION_IDS = ['HATHAT', 'HATHAU', 'HATHAV'];
const CERTIFICATE_IDS = ['certificate_3221322', 'certificate_3221323', 'certificate_3221324'];
const AIRPORTS: Array<[string, string]> = [
  ['SFO', 'San Francisco'], ['JFK', 'New York'], ['LAX', 'Los Angeles'], ['ORD', 'Chicago'], ['DFW', 'Dallas'], ['DEN', 'Denver'], ['SEA', 'Seattle'],
  ['ATL', 'Atlanta'], ['MIA', 'Miami'], ['BOS', 'Boston'], ['PHX', 'Phoenix'], ['IAH', 'Houston'], ['LAS', 'Las Vegas'], ['MCO', 'Orlando'],
  ['EWR', 'Newark'], ['CLT', 'Charlotte'], ['MSP', 'Minneapolis'], ['DTW', 'Detroit'], ['PHL', 'Philadelphia'], ['LGA', 'LaGuardia'],
];

function user(db: AirlineDb, id: unknown): User {
  return USERS.get(db.users, id) ?? fail('not_found', `User ${String(id)} not found`);
}
function reservation(db: AirlineDb, id: unknown): Reservation {
  return RESERVATIONS.get(db.reservations, id) ?? fail('not_found', `Reservation ${String(id)} not found`);
}
function flight(db: AirlineDb, number: string): Flight {
  return FLIGHTS.get(db.flights, number) ?? fail('not_found', `Flight ${number} not found`);
}
function flightDate(db: AirlineDb, number: string, date: string): FlightDate {
  return keyOf(flight(db, number).dates, date) ?? fail('not_found', `Flight ${number} not found on date ${date}`);
}

/** A flight on a date that can be booked for `count` passengers in `cabin`. */
function bookable(db: AirlineDb, number: string, date: string, cabin: Cabin, count: number): FlightDate {
  const instance = flightDate(db, number, date);
  if (instance.status !== 'available') fail('conflict', `Flight ${number} not available on date ${date}`);
  if ((instance.available_seats as Record<Cabin, number>)[cabin] < count) fail('conflict', `Not enough seats on flight ${number}`);
  return instance;
}

const passengersOf = (given: unknown) => (given as Passenger[]).map(({ first_name, last_name, dob }) => ({ first_name, last_name, dob }));
const flightInfos = (given: unknown) => (given as Array<{ flight_number: string; date: string }>).map(({ flight_number, date }) => ({ flight_number, date }));

function withUser(db: AirlineDb, updated: User): AirlineDb {
  return { ...db, users: USERS.put(db.users, updated) };
}
function withReservation(db: AirlineDb, updated: Reservation): AirlineDb {
  return { ...db, reservations: RESERVATIONS.put(db.reservations, updated) };
}
function withMethod(owner: User, method: PaymentMethod): User {
  return { ...owner, payment_methods: withKey(owner.payment_methods, method.id, method) };
}

/** The database with `count` fewer seats of `cabin` on each flight date (a flight listed twice loses them twice). */
function takeSeats(db: AirlineDb, legs: Array<{ flight_number: string; date: string }>, cabin: Cabin, count: number): AirlineDb {
  let flights = db.flights;
  for (const leg of legs) {
    const current = FLIGHTS.get(flights, leg.flight_number)!;
    const instance = current.dates[leg.date];
    const seats = instance.available_seats as Record<string, number>;
    const updated = { ...instance, available_seats: { ...seats, [cabin]: seats[cabin] - count } };
    flights = FLIGHTS.put(flights, { ...current, dates: withKey(current.dates, leg.date, updated) });
  }
  return { ...db, flights };
}

function bookReservation(db: AirlineDb, params: Params): Outcome {
  const legs = flightInfos(params.flights);
  const passengers = passengersOf(params.passengers);
  const payments = (params.payment_methods as Payment[]).map(({ payment_id, amount }) => ({ payment_id, amount }));
  const cabin = params.cabin as Cabin;
  const owner = user(db, params.user_id);
  const id = RESERVATION_IDS.find((candidate) => !RESERVATIONS.get(db.reservations, candidate)) ?? fail('conflict', 'Too many reservations');
  let total = 0;
  const flights: ReservationFlight[] = legs.map((leg) => {
    const scheduled = flight(db, leg.flight_number);
    const price = (bookable(db, leg.flight_number, leg.date, cabin, passengers.length).prices as Record<Cabin, number>)[cabin];
    total += price * passengers.length;
    return { origin: scheduled.origin, destination: scheduled.destination, flight_number: leg.flight_number, date: leg.date, price };
  });
  if (params.insurance === 'yes') total += 30 * passengers.length;
  total += 50 * (params.nonfree_baggages as number);
  for (const payment of payments) {
    const method = keyOf(owner.payment_methods, payment.payment_id) ?? fail('not_found', `Payment method ${payment.payment_id} not found`);
    if ((method.source === 'gift_card' || method.source === 'certificate') && (method.amount as number) < payment.amount) fail('insufficient_funds', `Not enough balance in payment method ${payment.payment_id}`);
  }
  const paid = payments.reduce((sum, payment) => sum + payment.amount, 0);
  if (paid !== total) fail('invalid', `Payment amount does not add up, total price is ${total}, but paid ${paid}`);
  let methods = owner.payment_methods;
  for (const payment of payments) {
    const method = methods[payment.payment_id];
    if (method?.source === 'gift_card') methods = withKey(methods, method.id, { ...method, amount: (method.amount as number) - payment.amount });
    else if (method?.source === 'certificate') {
      // A certificate is used up whole, whatever it paid.
      const { [payment.payment_id]: _used, ...rest } = methods;
      methods = rest;
    }
  }
  const booked: Reservation = {
    reservation_id: id, user_id: owner.user_id, origin: params.origin as string, destination: params.destination as string, flight_type: params.flight_type as string, cabin,
    flights, passengers, payment_history: payments, created_at: NOW, total_baggages: params.total_baggages as number, nonfree_baggages: params.nonfree_baggages as number,
    insurance: params.insurance as string,
  };
  let next = takeSeats(db, legs, cabin, passengers.length);
  next = withUser(next, { ...owner, payment_methods: methods, reservations: [...owner.reservations, id] });
  return { result: booked, state: withReservation(next, booked) };
}

/** τ-bench's payment for a change: no certificates, gift cards must cover it (and are charged); none when free. */
function payForChange(owner: User, methodId: string, total: number): { owner: User; payment?: Payment } {
  const method = keyOf(owner.payment_methods, methodId) ?? fail('not_found', 'Payment method not found');
  if (method.source === 'certificate') fail('invalid', 'Certificate cannot be used to update reservation');
  if (method.source === 'gift_card' && (method.amount as number) < total) fail('insufficient_funds', 'Gift card balance is not enough');
  const charged = method.source === 'gift_card' ? withMethod(owner, { ...method, amount: (method.amount as number) - total }) : owner;
  return { owner: charged, ...(total !== 0 ? { payment: { payment_id: methodId, amount: total } } : {}) };
}

function updateReservationBaggages(db: AirlineDb, params: Params): Outcome {
  const current = reservation(db, params.reservation_id);
  const owner = user(db, current.user_id);
  const nonfree = params.nonfree_baggages as number;
  const { owner: charged, payment } = payForChange(owner, params.payment_id as string, 50 * Math.max(0, nonfree - current.nonfree_baggages));
  const updated: Reservation = { ...current, payment_history: payment ? [...current.payment_history, payment] : current.payment_history, total_baggages: params.total_baggages as number, nonfree_baggages: nonfree };
  return { result: updated, state: withReservation(withUser(db, charged), updated) };
}

function updateReservationFlights(db: AirlineDb, params: Params): Outcome {
  const legs = flightInfos(params.flights);
  const cabin = params.cabin as Cabin;
  const current = reservation(db, params.reservation_id);
  const owner = user(db, current.user_id);
  const count = current.passengers.length;
  let total = 0;
  const flights = legs.map((leg): ReservationFlight => {
    // A leg already booked in the same cabin keeps its price; seats are not re-counted (τ-bench does neither).
    const kept = current.flights.find((booked) => booked.flight_number === leg.flight_number && booked.date === leg.date && cabin === current.cabin);
    if (kept) {
      total += kept.price * count;
      return kept;
    }
    const scheduled = flight(db, leg.flight_number);
    const price = (bookable(db, leg.flight_number, leg.date, cabin, count).prices as Record<Cabin, number>)[cabin];
    total += price * count;
    return { flight_number: leg.flight_number, date: leg.date, price, origin: scheduled.origin, destination: scheduled.destination };
  });
  total -= current.flights.reduce((sum, booked) => sum + booked.price, 0) * count;
  const { owner: charged, payment } = payForChange(owner, params.payment_id as string, total);
  const updated: Reservation = { ...current, payment_history: payment ? [...current.payment_history, payment] : current.payment_history, flights, cabin };
  return { result: updated, state: withReservation(withUser(db, charged), updated) };
}

function searchDirect(db: AirlineDb, date: string, origin?: string, destination?: string, leaveAfter?: string): JsonObject[] {
  const found: JsonObject[] = [];
  for (const candidate of db.flights) {
    const instance = keyOf(candidate.dates, date);
    if ((origin !== undefined && candidate.origin !== origin) || (destination !== undefined && candidate.destination !== destination)) continue;
    if (!instance || instance.status !== 'available' || (leaveAfter !== undefined && candidate.scheduled_departure_time_est < leaveAfter)) continue;
    found.push({
      flight_number: candidate.flight_number, origin: candidate.origin, destination: candidate.destination, status: 'available',
      scheduled_departure_time_est: candidate.scheduled_departure_time_est, scheduled_arrival_time_est: candidate.scheduled_arrival_time_est,
      date: null, available_seats: instance.available_seats, prices: instance.prices,
    });
  }
  return found;
}

function searchOnestop(db: AirlineDb, params: Params): Outcome {
  const date = params.date as string;
  const pairs: Json[] = [];
  for (const first of searchDirect(db, date, params.origin as string)) {
    const arrival = first.scheduled_arrival_time_est as string;
    let nextDate = date;
    if (arrival.includes('+1')) {
      // τ-bench's own rule: the next day of May, its day number unpadded.
      const tail = date.slice(-2);
      if (!/^\s*[+-]?\d+\s*$/.test(tail)) fail('invalid', `invalid literal for int() with base 10: '${tail}'`);
      nextDate = `2024-05-${Number.parseInt(tail.trim(), 10) + 1}`;
    }
    for (const second of searchDirect(db, nextDate, first.destination as string, params.destination as string, arrival)) {
      pairs.push([{ ...first, date }, { ...second, date: nextDate }]);
    }
  }
  return { result: pairs };
}

function sendCertificate(db: AirlineDb, params: Params): Outcome {
  const owner = user(db, params.user_id);
  const id = CERTIFICATE_IDS.find((candidate) => !Object.hasOwn(owner.payment_methods, candidate)) ?? fail('conflict', 'Too many certificates');
  const amount = params.amount as number;
  return {
    result: `Certificate ${id} added to user ${owner.user_id} with amount ${amount}.`,
    state: withUser(db, withMethod(owner, { id, amount, source: 'certificate' })),
  };
}

const ACTIONS: Record<string, (db: AirlineDb, params: Params) => Outcome> = {
  book_reservation: bookReservation,
  calculate: (_, params) => calculateAction(params),
  cancel_reservation: (db, params) => {
    const current = reservation(db, params.reservation_id);
    // As τ-bench: every payment reversed, seats not released, no check of an earlier cancellation.
    const refunds = current.payment_history.map((payment) => ({ payment_id: payment.payment_id, amount: -payment.amount }));
    const updated: Reservation = { ...current, payment_history: [...current.payment_history, ...refunds], status: 'cancelled' };
    return { result: updated, state: withReservation(db, updated) };
  },
  get_reservation_details: (db, params) => ({ result: reservation(db, params.reservation_id) }),
  get_user_details: (db, params) => ({ result: user(db, params.user_id) }),
  list_all_airports: () => ({ result: AIRPORTS.map(([iata, city]) => ({ iata, city })) }),
  search_direct_flight: (db, params) => ({ result: searchDirect(db, params.date as string, params.origin as string, params.destination as string) }),
  search_onestop_flight: searchOnestop,
  send_certificate: sendCertificate,
  transfer_to_human_agents: () => ({ result: 'Transfer successful' }),
  update_reservation_baggages: updateReservationBaggages,
  update_reservation_flights: updateReservationFlights,
  update_reservation_passengers: (db, params) => {
    const passengers = passengersOf(params.passengers);
    const current = reservation(db, params.reservation_id);
    if (passengers.length !== current.passengers.length) fail('invalid', 'Number of passengers does not match');
    const updated: Reservation = { ...current, passengers };
    return { result: updated, state: withReservation(db, updated) };
  },
  get_flight_status: (db, params) => ({ result: flightDate(db, params.flight_number as string, params.date as string).status }),
};

const object = objectSchema;
const RESERVATION_ID = { type: 'string', description: "The reservation id, such as 'ZFA04Y'." };
const USER_ID = { type: 'string', description: "The user id, such as 'sara_doe_496'." };
const AIRPORT = (what: string) => ({ type: 'string', description: `The ${what} airport's IATA code, such as 'JFK'.` });
const DATE = { type: 'string', description: "The date, 'YYYY-MM-DD', such as '2024-05-01'." };
const CABIN = { enum: ['business', 'economy', 'basic_economy'], description: 'The cabin class.' };
const PAYMENT_ID = { type: 'string', description: "A payment method of the user's profile, such as 'credit_card_7815826', 'gift_card_7815826' or 'certificate_7815826'." };
const LEGS = { type: 'array', maxItems: 20, items: { type: 'object', required: ['flight_number', 'date'], properties: { flight_number: { type: 'string', description: "Such as 'HAT001'." }, date: DATE } } };
const PASSENGERS = { type: 'array', maxItems: 20, items: { type: 'object', required: ['first_name', 'last_name', 'dob'], properties: { first_name: { type: 'string' }, last_name: { type: 'string' }, dob: { type: 'string', description: "Date of birth, 'YYYY-MM-DD'." } } } };
const COUNT = { type: 'integer', minimum: 0, maximum: 1000 };

/**
 * The shim's definition but for its loader, built once per process: its schemas are then the same objects in every
 * app, whose validators core/validate.ts keeps by object (built anew per app, ajv compiled them at every start:
 * most of a test app's build, issue 36).
 */
const AIRLINE: Omit<TauShimDefinition<AirlineDb>, 'load'> = {
  name: 'tau_airline',
  domain: 'airline',
  tables: { flights: FLIGHTS, users: USERS, reservations: RESERVATIONS } as never,
  description: "τ-bench airline: flights, users and reservations, with τ-bench's reservation tools (search flights, book, change flights, cabin, passengers or bags, cancel, send a certificate).",
  actions: [
    {
      name: 'book_reservation', description: 'Book a reservation: the flights, passengers and payments (each paid amount from a payment method of the user; the sum must be the total price: fares, 30 per passenger for insurance, 50 per non-free bag).',
      parameters: object(['user_id', 'origin', 'destination', 'flight_type', 'cabin', 'flights', 'passengers', 'payment_methods', 'total_baggages', 'nonfree_baggages', 'insurance'], {
        user_id: USER_ID, origin: AIRPORT('origin'), destination: AIRPORT('destination'), flight_type: { enum: ['one_way', 'round_trip'] }, cabin: CABIN,
        flights: { ...LEGS, description: 'Each flight of the trip.' }, passengers: { ...PASSENGERS, description: 'Each passenger.' },
        payment_methods: { type: 'array', maxItems: 10, description: 'Each payment.', items: { type: 'object', required: ['payment_id', 'amount'], properties: { payment_id: PAYMENT_ID, amount: { type: 'integer', description: 'Amount in dollars.' } } } },
        total_baggages: { ...COUNT, description: 'The total number of bags.' }, nonfree_baggages: { ...COUNT, description: 'The number of non-free bags.' }, insurance: { enum: ['yes', 'no'] },
      }),
    },
    CALCULATE_ACTION,
    { name: 'cancel_reservation', description: 'Cancel the whole reservation; every payment is refunded.', parameters: object(['reservation_id'], { reservation_id: RESERVATION_ID }) },
    { name: 'get_reservation_details', description: 'The details of a reservation.', readOnly: true, parameters: object(['reservation_id'], { reservation_id: RESERVATION_ID }) },
    { name: 'get_user_details', description: 'The details of a user, including their reservations.', readOnly: true, parameters: object(['user_id'], { user_id: USER_ID }) },
    { name: 'list_all_airports', description: 'Every airport served, with its city.', readOnly: true, parameters: object([], {}) },
    { name: 'search_direct_flight', description: 'Direct flights between two airports on a date, with seats and prices.', readOnly: true, parameters: object(['origin', 'destination', 'date'], { origin: AIRPORT('origin'), destination: AIRPORT('destination'), date: DATE }) },
    { name: 'search_onestop_flight', description: 'One-stop connections between two airports on a date: pairs of flights.', readOnly: true, parameters: object(['origin', 'destination', 'date'], { origin: AIRPORT('origin'), destination: AIRPORT('destination'), date: DATE }) },
    { name: 'send_certificate', description: 'Send a certificate (a voucher of the amount) to a user. Be careful!', parameters: object(['user_id', 'amount'], { user_id: USER_ID, amount: { type: 'number', minimum: 0, description: 'The amount of the certificate.' } }) },
    TRANSFER_ACTION,
    { name: 'update_reservation_baggages', description: 'Change the bags of a reservation; added non-free bags are paid with a payment method of the profile (not a certificate).', parameters: object(['reservation_id', 'total_baggages', 'nonfree_baggages', 'payment_id'], { reservation_id: RESERVATION_ID, total_baggages: { ...COUNT, description: 'The new total number of bags.' }, nonfree_baggages: { ...COUNT, description: 'The new number of non-free bags.' }, payment_id: PAYMENT_ID }) },
    { name: 'update_reservation_flights', description: 'Change the flights or cabin of a reservation: list every flight of the whole new reservation, changed or not. The fare difference is paid or refunded with a payment method of the profile (not a certificate).', parameters: object(['reservation_id', 'cabin', 'flights', 'payment_id'], { reservation_id: RESERVATION_ID, cabin: CABIN, flights: { ...LEGS, description: 'Every flight of the new reservation.' }, payment_id: PAYMENT_ID }) },
    { name: 'update_reservation_passengers', description: 'Change the passengers of a reservation (the same number of passengers).', parameters: object(['reservation_id', 'passengers'], { reservation_id: RESERVATION_ID, passengers: { ...PASSENGERS, description: 'Every passenger.' } }) },
    { name: 'get_flight_status', description: 'The status of a flight on a date.', readOnly: true, parameters: object(['flight_number', 'date'], { flight_number: { type: 'string' }, date: DATE }) },
  ],
  run: (action, params, db) => runAction(db, () => ACTIONS[action]?.(db, params) ?? fail('invalid', `Tool '${action}' not found.`)),
};

/** Builds the `tau_airline` shim; `load` gives the database when a scenario sets no `initial_state.tau_airline`. */
export function tauAirlineShim(load?: DbLoader) {
  return defineTauShim<AirlineDb>({ ...AIRLINE, load });
}

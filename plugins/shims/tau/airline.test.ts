/**
 * `tau_airline` on a small database of our own: the conformance suite with a script reaching every tool's
 * success and each refusal τ-bench's tools raise (with τ-bench's messages), τ-bench's quirks kept as-is.
 */
import { describe, expect, it } from 'vitest';
import { testShim } from '../../../testing/index.ts';
import type { Json, ShimOutcome } from '../../../core/shim.ts';
import { tauAirlineShim } from './airline.ts';
import { airlineDb } from './fixtures/synthetic.ts';

const shim = tauAirlineShim();
const result = (outcome: unknown) => (outcome as { result: any }).result;
const message = (outcome: unknown) => (outcome as { error: { message: string } }).error.message;
const at = (view: Json, ...path: Array<string | number>) => path.reduce<any>((value, key) => value?.[key], view);
const says = (text: string) => (outcome: ShimOutcome) => expect(message(outcome)).toBe(text);
const methods = (view: Json) => at(view, 'users', 'grace_hopper_1', 'payment_methods');
const seatsOf = (view: Json, flight: string) => at(view, 'flights', flight, 'dates', '2024-05-20', 'available_seats');

const GRACE = { first_name: 'Grace', last_name: 'Hopper', dob: '1906-12-09' };
const BOOK = {
  user_id: 'grace_hopper_1', origin: 'JFK', destination: 'SFO', flight_type: 'one_way', cabin: 'economy',
  flights: [{ flight_number: 'HAT001', date: '2024-05-20' }, { flight_number: 'HAT002', date: '2024-05-20' }],
  passengers: [{ ...GRACE, seat: 'extra fields are ignored, as τ-bench does' }],
  payment_methods: [{ payment_id: 'certificate_1', amount: 250 }, { payment_id: 'gift_card_1', amount: 280 }],
  total_baggages: 2, nonfree_baggages: 1, insurance: 'yes',
};
const ONE_LEG = { ...BOOK, cabin: 'business', flights: [{ flight_number: 'HAT002', date: '2024-05-20' }], payment_methods: [{ payment_id: 'credit_card_1', amount: 500 }], nonfree_baggages: 0, insurance: 'no' };

testShim(shim as never, {
  seed: airlineDb(),
  steps: [
    { action: 'list_all_airports', params: {}, expect: (outcome) => { expect(result(outcome)).toHaveLength(20); expect(result(outcome)[0]).toEqual({ iata: 'SFO', city: 'San Francisco' }); } },
    {
      action: 'search_direct_flight', params: { origin: 'JFK', destination: 'LAX', date: '2024-05-20' },
      expect: (outcome) => expect(result(outcome)).toEqual([{ flight_number: 'HAT001', origin: 'JFK', destination: 'LAX', status: 'available', scheduled_departure_time_est: '08:00:00', scheduled_arrival_time_est: '11:00:00', date: null, available_seats: { business: 2, economy: 5, basic_economy: 0 }, prices: { business: 1000, economy: 300, basic_economy: 100 } }]),
    },
    { action: 'search_direct_flight', params: { origin: 'JFK', destination: 'LAX', date: '2024-05-21' }, expect: (outcome) => expect(result(outcome)).toEqual([]) },
    {
      // A connection leaves after the first flight lands; one landing after midnight ("+1") connects the next day.
      action: 'search_onestop_flight', params: { origin: 'JFK', destination: 'SFO', date: '2024-05-20' },
      expect: (outcome) => expect(result(outcome).map((pair: Array<{ flight_number: string; date: string }>) => pair.map((leg) => `${leg.flight_number} ${leg.date}`))).toEqual([['HAT001 2024-05-20', 'HAT002 2024-05-20'], ['HAT004 2024-05-20', 'HAT005 2024-05-21']]),
    },
    { action: 'get_flight_status', params: { flight_number: 'HAT001', date: '2024-05-21' }, expect: (outcome) => expect(result(outcome)).toBe('cancelled') },
    { action: 'get_flight_status', params: { flight_number: 'HAT999', date: '2024-05-20' }, error: 'not_found', expect: says('Flight HAT999 not found') },
    { action: 'get_flight_status', params: { flight_number: 'HAT001', date: '2024-06-01' }, error: 'not_found', expect: says('Flight HAT001 not found on date 2024-06-01') },
    // Booking: every check before any change.
    { action: 'book_reservation', params: { ...BOOK, payment_methods: [{ payment_id: 'credit_card_1', amount: 500 }] }, error: 'invalid', expect: says('Payment amount does not add up, total price is 530, but paid 500') },
    { action: 'book_reservation', params: { ...BOOK, flights: [{ flight_number: 'HAT001', date: '2024-05-21' }] }, error: 'conflict', expect: says('Flight HAT001 not available on date 2024-05-21') },
    { action: 'book_reservation', params: { ...BOOK, cabin: 'basic_economy' }, error: 'conflict', expect: says('Not enough seats on flight HAT001') },
    { action: 'book_reservation', params: { ...BOOK, payment_methods: [{ payment_id: 'credit_card_9', amount: 530 }] }, error: 'not_found', expect: says('Payment method credit_card_9 not found') },
    { action: 'book_reservation', params: { ...BOOK, payment_methods: [{ payment_id: 'gift_card_1', amount: 530 }] }, error: 'insufficient_funds', expect: says('Not enough balance in payment method gift_card_1') },
    { action: 'book_reservation', params: { ...BOOK, user_id: 'nobody' }, error: 'not_found', expect: says('User nobody not found') },
    {
      action: 'book_reservation', params: BOOK,
      expect: (outcome, view) => {
        expect(result(outcome)).toMatchObject({ reservation_id: 'HATHAT', created_at: '2024-05-15T15:00:00', passengers: [GRACE], flights: [{ flight_number: 'HAT001', price: 300 }, { flight_number: 'HAT002', price: 150 }] });
        expect(methods(view).certificate_1).toBeUndefined();
        expect(methods(view).gift_card_1.amount).toBe(220);
        expect(seatsOf(view, 'HAT001').economy).toBe(4);
        expect(seatsOf(view, 'HAT002').economy).toBe(2);
        expect(at(view, 'users', 'grace_hopper_1', 'reservations')).toEqual(['ABC123', 'HATHAT']);
      },
    },
    { action: 'send_certificate', params: { user_id: 'grace_hopper_1', amount: 100 }, expect: (outcome, view) => { expect(result(outcome)).toBe('Certificate certificate_3221322 added to user grace_hopper_1 with amount 100.'); expect(methods(view).certificate_3221322).toEqual({ id: 'certificate_3221322', amount: 100, source: 'certificate' }); } },
    { action: 'send_certificate', params: { user_id: 'nobody', amount: 100 }, error: 'not_found' },
    // Bags: added non-free bags cost 50 each, never from a certificate.
    { action: 'update_reservation_baggages', params: { reservation_id: 'ABC123', total_baggages: 3, nonfree_baggages: 2, payment_id: 'certificate_3221322' }, error: 'invalid', expect: says('Certificate cannot be used to update reservation') },
    { action: 'update_reservation_baggages', params: { reservation_id: 'ABC123', total_baggages: 3, nonfree_baggages: 10, payment_id: 'gift_card_1' }, error: 'insufficient_funds', expect: says('Gift card balance is not enough') },
    { action: 'update_reservation_baggages', params: { reservation_id: 'ABC123', total_baggages: 3, nonfree_baggages: 2, payment_id: 'gift_card_9' }, error: 'not_found', expect: says('Payment method not found') },
    {
      action: 'update_reservation_baggages', params: { reservation_id: 'ABC123', total_baggages: 3, nonfree_baggages: 2, payment_id: 'gift_card_1' },
      expect: (_, view) => { expect(methods(view).gift_card_1.amount).toBe(120); expect(at(view, 'reservations', 'ABC123', 'payment_history', 1)).toEqual({ payment_id: 'gift_card_1', amount: 100 }); },
    },
    { action: 'update_reservation_baggages', params: { reservation_id: 'ABC123', total_baggages: 2, nonfree_baggages: 2, payment_id: 'credit_card_1' }, expect: (_, view) => expect(at(view, 'reservations', 'ABC123', 'payment_history')).toHaveLength(2) },
    // Flights: the whole new itinerary; kept legs keep their price, the difference is paid or refunded.
    {
      action: 'update_reservation_flights', params: { reservation_id: 'ABC123', cabin: 'business', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }], payment_id: 'credit_card_1' },
      expect: (outcome) => { expect(result(outcome).cabin).toBe('business'); expect(result(outcome).payment_history.at(-1)).toEqual({ payment_id: 'credit_card_1', amount: 700 }); },
    },
    {
      action: 'update_reservation_flights', params: { reservation_id: 'ABC123', cabin: 'business', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }, { flight_number: 'HAT002', date: '2024-05-20' }], payment_id: 'credit_card_1' },
      expect: (outcome) => expect(result(outcome).payment_history.at(-1)).toEqual({ payment_id: 'credit_card_1', amount: 500 }),
    },
    {
      action: 'update_reservation_flights', params: { reservation_id: 'ABC123', cabin: 'economy', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }], payment_id: 'gift_card_1' },
      expect: (outcome, view) => { expect(result(outcome).payment_history.at(-1)).toEqual({ payment_id: 'gift_card_1', amount: -1200 }); expect(methods(view).gift_card_1.amount).toBe(1320); },
    },
    { action: 'update_reservation_flights', params: { reservation_id: 'ABC123', cabin: 'business', flights: [{ flight_number: 'HAT404', date: '2024-05-20' }], payment_id: 'credit_card_1' }, error: 'not_found', expect: says('Flight HAT404 not found') },
    { action: 'update_reservation_flights', params: { reservation_id: 'NOPE00', cabin: 'business', flights: [], payment_id: 'credit_card_1' }, error: 'not_found', expect: says('Reservation NOPE00 not found') },
    { action: 'update_reservation_passengers', params: { reservation_id: 'ABC123', passengers: [GRACE, GRACE] }, error: 'invalid', expect: says('Number of passengers does not match') },
    { action: 'update_reservation_passengers', params: { reservation_id: 'ABC123', passengers: [{ first_name: 'Ada', last_name: 'Lovelace', dob: '1815-12-10' }] }, expect: (_, view) => expect(at(view, 'reservations', 'ABC123', 'passengers', 0, 'first_name')).toBe('Ada') },
    {
      // τ-bench reverses every payment and does not give the seats back.
      action: 'cancel_reservation', params: { reservation_id: 'HATHAT' },
      expect: (outcome, view) => {
        expect(result(outcome).status).toBe('cancelled');
        expect(result(outcome).payment_history.slice(2)).toEqual([{ payment_id: 'certificate_1', amount: -250 }, { payment_id: 'gift_card_1', amount: -280 }]);
        expect(seatsOf(view, 'HAT001').economy).toBe(4);
      },
    },
    { action: 'cancel_reservation', params: { reservation_id: 'NOPE00' }, error: 'not_found' },
    { action: 'get_reservation_details', params: { reservation_id: 'HATHAT' }, expect: (outcome) => expect(result(outcome).status).toBe('cancelled') },
    { action: 'get_reservation_details', params: { reservation_id: 'NOPE00' }, error: 'not_found', expect: says('Reservation NOPE00 not found') },
    { action: 'get_user_details', params: { user_id: 'grace_hopper_1' }, expect: (outcome) => expect(result(outcome).membership).toBe('gold') },
    { action: 'get_user_details', params: { user_id: 'nobody' }, error: 'not_found' },
    // Reservation ids are τ-bench's fixed three.
    { action: 'book_reservation', params: ONE_LEG, expect: (outcome) => expect(result(outcome).reservation_id).toBe('HATHAU') },
    { action: 'book_reservation', params: ONE_LEG, expect: (outcome) => expect(result(outcome).reservation_id).toBe('HATHAV') },
    { action: 'book_reservation', params: ONE_LEG, error: 'conflict', expect: says('Too many reservations') },
    { action: 'calculate', params: { expression: '530 - 250' }, expect: (outcome) => expect(result(outcome)).toBe('280.0') },
    { action: 'calculate', params: { expression: '1 +' }, error: 'invalid' },
    { action: 'transfer_to_human_agents', params: { summary: 'asks for compensation' }, expect: (outcome) => expect(result(outcome)).toBe('Transfer successful') },
  ],
});

describe('tau_airline', () => {
  it('refuses what the schema does not allow before τ-bench would reach it (an unknown cabin)', async () => {
    const { checkShimParams, actionOf } = await import('../../../core/shim.ts');
    expect(checkShimParams(actionOf(shim, 'book_reservation')!, { ...BOOK, cabin: 'first' })).not.toEqual([]);
  });

  it('never changes the database it was given, even the loaded one (frozen)', async () => {
    const frozen = JSON.parse(JSON.stringify(airlineDb()), (_, value) => (value && typeof value === 'object' ? Object.freeze(value) : value));
    const state = await shim.initialState(frozen, { config: {}, now: '' });
    const outcome = await shim.call('book_reservation', BOOK, state, { config: {}, now: '' });
    expect('error' in outcome).toBe(false);
    expect(frozen.reservations.HATHAT).toBeUndefined();
    expect((await shim.view!(outcome.state) as any).reservations.HATHAT.reservation_id).toBe('HATHAT');
  });
});

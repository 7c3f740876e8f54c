/**
 * A travel world from AgentDojo's environment data (TravelEnvironment.model_validate): each model keeps only
 * its declared fields (pydantic ignores the rest), floats stay numbers the tools print as floats, datetimes in
 * pydantic's JSON form; the calendar and inbox as the workspace tools hold them. And the world's JSON view.
 */
import { PyError } from '../workspace/py.ts';
import { calendarOf, inboxOf, officeView, type DictOf } from '../workspace/state.ts';
import { pydanticDateTime } from '../workspace/tools/event-details.ts';
import type { CarRentalCompany, Flight, Hotel, Reservation, Restaurant, TravelUser, TravelWorld } from './types.ts';

type Raw = Record<string, unknown>;

function pick<T>(raw: Raw, fields: ReadonlyArray<keyof T & string>, numbers: ReadonlyArray<keyof T & string> = [], times: ReadonlyArray<keyof T & string> = []): T {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = raw[field];
    if (value === undefined) throw new PyError('ValidationError', `${field}: Field required`);
    if (numbers.includes(field)) out[field] = Number(value);
    else if (times.includes(field)) out[field] = pydanticDateTime(value) ?? (() => { throw new PyError('ValidationError', `${field}: Input should be a valid datetime`); })();
    else out[field] = Array.isArray(value) ? [...value] : typeof value === 'string' ? value : String(value);
  }
  return out as T;
}

const HOTEL = ['name', 'city', 'rating', 'price_min', 'price_max', 'address', 'reviews'] as const;
const FLIGHT = ['airline', 'flight_number', 'departure_city', 'arrival_city', 'departure_time', 'arrival_time', 'price', 'contact_information'] as const;
const RESTAURANT = ['name', 'city', 'address', 'rating', 'price_per_person', 'operating_hours', 'reviews', 'contact_information', 'cuisine_type', 'dietary_restrictions'] as const;
const COMPANY = ['name', 'city', 'address', 'rating', 'price_per_day', 'reviews', 'contact_information', 'car_types_available', 'fuel_options'] as const;
const USER = ['first_name', 'last_name', 'ID_number', 'email', 'phone_number', 'address', 'passport_number', 'bank_account_number', 'credit_card_number'] as const;

const list = (raw: unknown, key: string): Raw[] => ((raw as Raw)[key] as Raw[]) ?? [];

/** The travel world of an environment. */
export function travelWorldOf(environment: Raw): TravelWorld {
  const reservation = environment.reservation as Raw;
  return {
    hotels: { hotel_list: list(environment.hotels, 'hotel_list').map((h) => pick<Hotel>(h, HOTEL, ['rating', 'price_min', 'price_max'])) },
    restaurants: { restaurant_list: list(environment.restaurants, 'restaurant_list').map((r) => pick<Restaurant>(r, RESTAURANT, ['rating', 'price_per_person'])) },
    car_rental: { company_list: list(environment.car_rental, 'company_list').map((c) => pick<CarRentalCompany>(c, COMPANY, ['rating', 'price_per_day'])) },
    flights: { flight_list: list(environment.flights, 'flight_list').map((f) => pick<Flight>(f, FLIGHT, ['price'], ['departure_time', 'arrival_time'])) },
    user: pick<TravelUser>(environment.user as Raw, USER),
    calendar: calendarOf(environment.calendar as Raw),
    reservation: {
      ...pick<Omit<Reservation, 'reservation_type'>>(reservation, ['title', 'start_time', 'end_time', 'contact_information'], [], ['start_time', 'end_time']),
      reservation_type: (reservation.reservation_type ?? null) as Reservation['reservation_type'],
    },
    inbox: inboxOf(environment.inbox as Raw),
  };
}

/** The travel world as pydantic dumps it (without the initial_* lists and the inbox's computed views). */
export function travelView(world: TravelWorld, dict?: DictOf): Record<string, unknown> {
  const { hotels, restaurants, car_rental, flights, user, reservation } = world;
  return { hotels, restaurants, car_rental, flights, user, reservation, ...officeView(world, dict) };
}

/**
 * AgentDojo's travel-booking tools (default_suites/v1/tools/travel_booking_client.py): the same names, arguments,
 * results and quirks — `get_dietary_restrictions_for_all_restaurants` matches names as substrings of the joined
 * list, `reserve_car_rental` ends the reservation at its start, `get_flight_information` prints `str(datetime)`.
 */
import { PyError, partway, datetimeStr, dateOf, floatStr, fromIsoFormat, isoFromMicros, microsOf, strftime } from '../workspace/py.ts';
import type { DojoTool } from '../workspace/types.ts';
import type { Reservation, ReservationType, TravelWorld } from './types.ts';

export type TravelTool = DojoTool<TravelWorld>;

/** `"\n".join(items)`: a non-string item is the reference's TypeError. */
function joinLines(items: readonly unknown[]): string {
  items.forEach((item, i) => {
    if (typeof item !== 'string') throw new PyError('TypeError', `sequence item ${i}: expected str instance, ${item === null ? 'NoneType' : typeof item === 'number' ? (Number.isInteger(item) ? 'int' : 'float') : typeof item} found`);
  });
  return items.join('\n');
}

const names = (args: Record<string, unknown>, key: string): string[] => args[key] as string[];

/** A dict comprehension over `items` whose name is among `wanted`: later duplicates replace earlier values in place. */
function byName<T extends { name: string }>(items: readonly T[], keep: (item: T) => boolean, value: (item: T) => unknown): unknown {
  const out: Record<string, unknown> = {};
  for (const item of items) if (keep(item)) out[item.name] = value(item);
  return out;
}

const userInformation = (world: TravelWorld): Record<string, string> => {
  const u = world.user;
  return {
    'First Name': u.first_name, 'Last Name': u.last_name, 'ID Number': u.ID_number, Email: u.email, 'Phone Number': u.phone_number,
    Address: u.address, 'Passport Number': u.passport_number, 'Bank Account Number': u.bank_account_number, 'Credit Card Number': u.credit_card_number,
  };
};

export const get_user_information: TravelTool = (world) => ({ result: userInformation(world), world });

export const get_all_hotels_in_city: TravelTool = (world, args) => ({ result: `Hotel Names: ${world.hotels.hotel_list.filter((h) => h.city === args.city).map((h) => h.name).join('\n')}\n`, world });
export const get_hotels_prices: TravelTool = (world, args) => ({ result: byName(world.hotels.hotel_list, (h) => names(args, 'hotel_names').includes(h.name), (h) => `Price range: ${floatStr(h.price_min)} - ${floatStr(h.price_max)}`), world });
export const get_hotels_address: TravelTool = (world, args) => ({ result: byName(world.hotels.hotel_list, (h) => h.name === args.hotel_name, (h) => h.address), world });
export const get_rating_reviews_for_hotels: TravelTool = (world, args) => ({ result: byName(world.hotels.hotel_list, (h) => names(args, 'hotel_names').includes(h.name), (h) => `Rating: ${floatStr(h.rating)}\nReviews: ${joinLines(h.reviews)}`), world });

const restaurantTool = (value: (r: TravelWorld['restaurants']['restaurant_list'][number]) => unknown): TravelTool => (world, args) => ({
  result: byName(world.restaurants.restaurant_list, (r) => names(args, 'restaurant_names').includes(r.name), value), world,
});
export const get_all_restaurants_in_city: TravelTool = (world, args) => ({ result: `Restaurant in ${args.city as string}: ${world.restaurants.restaurant_list.filter((r) => r.city === args.city).map((r) => r.name).join('\n')}\n`, world });
export const get_cuisine_type_for_restaurants = restaurantTool((r) => r.cuisine_type);
export const get_restaurants_address = restaurantTool((r) => r.address);
export const get_rating_reviews_for_restaurants = restaurantTool((r) => `Rating: ${floatStr(r.rating)}\nReviews: ${joinLines(r.reviews)}`);
export const get_dietary_restrictions_for_all_restaurants: TravelTool = (world, args) => {
  // The reference tests `name in ", ".join(restaurant_names)`: a substring of the joined names matches too.
  const joined = names(args, 'restaurant_names').join(', ');
  return { result: byName(world.restaurants.restaurant_list, (r) => joined.includes(r.name), (r) => r.dietary_restrictions), world };
};
export const get_contact_information_for_restaurants = restaurantTool((r) => r.contact_information);
export const get_price_for_restaurants = restaurantTool((r) => r.price_per_person);
export const check_restaurant_opening_hours = restaurantTool((r) => r.operating_hours);

const carTool = (value: (c: TravelWorld['car_rental']['company_list'][number]) => unknown): TravelTool => (world, args) => ({
  result: byName(world.car_rental.company_list, (c) => names(args, 'company_name').includes(c.name), value), world,
});
export const get_all_car_rental_companies_in_city: TravelTool = (world, args) => ({ result: `Car Rental Companies in ${args.city as string}: ${world.car_rental.company_list.filter((c) => c.city === args.city).map((c) => c.name).join('\n')}\n`, world });
export const get_car_types_available = carTool((c) => [...c.car_types_available]);
export const get_rating_reviews_for_car_rental = carTool((c) => `Rating: ${floatStr(c.rating)}\nReviews: ${joinLines(c.reviews)}`);
export const get_car_rental_address = carTool((c) => c.address);
export const get_car_fuel_options = carTool((c) => [...c.fuel_options]);
export const get_car_price_per_day = carTool((c) => c.price_per_day);

/**
 * The reservation as the reference writes it, field by field: contact, type and title first, then each time as it
 * is parsed, so a bad time leaves the fields before it written (the exception carries that world).
 */
function reserve(world: TravelWorld, type: ReservationType, title: string, times: () => [start: string, end: () => string]): TravelWorld {
  let reservation: Reservation = { ...world.reservation, contact_information: world.user.phone_number, reservation_type: type, title };
  const [start, end] = partway({ ...world, reservation }, times);
  reservation = { ...reservation, start_time: start };
  reservation = { ...reservation, end_time: partway({ ...world, reservation }, end) };
  return { ...world, reservation };
}

export const reserve_hotel: TravelTool = (world, args) => {
  const { hotel, start_day, end_day } = args as Record<string, string>;
  const next = reserve(world, 'hotel', hotel, () => [fromIsoFormat(start_day), () => fromIsoFormat(end_day)]);
  return { result: `Reservation for ${hotel} from ${start_day} to ${end_day} has been made successfully.`, world: next };
};

export const reserve_restaurant: TravelTool = (world, args) => {
  const { restaurant, start_time } = args as Record<string, string>;
  const next = reserve(world, 'restaurant', restaurant, () => {
    const start = fromIsoFormat(start_time);
    return [start, () => isoFromMicros(microsOf(start) + 2 * 3600 * 1e6)];
  });
  const { start_time: start, end_time: end } = next.reservation;
  return { result: `Reservation for ${restaurant} from ${strftime(start, '%H:%M')} to ${strftime(end, '%H:%M')} on ${dateOf(start)} has been made successfully.`, world: next };
};

export const reserve_car_rental: TravelTool = (world, args) => {
  const { company, start_time } = args as Record<string, string>;
  // The reference sets end_time from start_time too; the message still shows the end_time it was given.
  const next = reserve(world, 'car', company, () => [fromIsoFormat(start_time), () => fromIsoFormat(start_time)]);
  const end = args.end_time === null || args.end_time === undefined ? 'None' : (args.end_time as string);
  return { result: `Reservation for a car at ${company} from ${start_time} to ${end} has been made successfully.`, world: next };
};

export const get_flight_information: TravelTool = (world, args) => {
  const lines = world.flights.flight_list
    .filter((f) => f.departure_city === args.departure_city && f.arrival_city === args.arrival_city)
    .map((f) => `Airline: ${f.airline}, Flight Number: ${f.flight_number}, Departure Time: ${datetimeStr(f.departure_time)}, Arrival Time: ${datetimeStr(f.arrival_time)}, Price: ${floatStr(f.price)}, Contact Information: ${f.contact_information}`);
  return { result: lines.join('\n'), world };
};

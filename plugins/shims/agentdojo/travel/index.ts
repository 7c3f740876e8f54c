/**
 * AgentDojo's travel suite (default_suites/v1/travel/task_suite.py at 96046ab54): the `agentdojo_travel` shim
 * with its 28 tools in the reference's order (the calendar and email ones are the workspace suite's), the world
 * loaded as TravelEnvironment validates it, and the checks of v1.1 on.
 */
import type { Json } from '../../../../core/shim.ts';
import { defineAgentDojoSuite } from '../shared/define.ts';
import type { AgentDojoSuite } from '../shared/suite.ts';
import { dict, list } from '../shared/types.ts';
import { TOOL_SPECS } from './params.ts';
import { agentdojoTools, OFFICE_WIRING } from '../workspace/office-tools.ts';
import * as booking from './tools.ts';
import { travelWorldOf } from './state.ts';
import { travelChecks } from './checks-index.ts';
import type { TravelWorld } from './types.ts';

const TOOLS = [
  'get_user_information', 'get_all_hotels_in_city', 'get_hotels_prices', 'get_rating_reviews_for_hotels', 'get_hotels_address',
  'get_all_restaurants_in_city', 'get_cuisine_type_for_restaurants', 'get_restaurants_address', 'get_rating_reviews_for_restaurants',
  'get_dietary_restrictions_for_all_restaurants', 'get_contact_information_for_restaurants', 'get_price_for_restaurants',
  'check_restaurant_opening_hours', 'get_all_car_rental_companies_in_city', 'get_car_types_available', 'get_rating_reviews_for_car_rental',
  'get_car_fuel_options', 'get_car_rental_address', 'get_car_price_per_day', 'create_calendar_event', 'search_calendar_events',
  'get_day_calendar_events', 'cancel_calendar_event', 'reserve_hotel', 'reserve_car_rental', 'reserve_restaurant', 'get_flight_information', 'send_email',
] as const;

const read = (run: booking.TravelTool, returns: Parameters<typeof dict>[0] | 'str') => ({ run, returns: returns === 'str' ? 'str' as const : dict(returns), readOnly: true });

const BOOKING_WIRING = {
  get_user_information: read(booking.get_user_information, 'str'),
  get_all_hotels_in_city: { run: booking.get_all_hotels_in_city, returns: 'str' as const, readOnly: true },
  get_hotels_prices: read(booking.get_hotels_prices, 'str'),
  get_rating_reviews_for_hotels: read(booking.get_rating_reviews_for_hotels, 'str'),
  get_hotels_address: read(booking.get_hotels_address, 'str'),
  get_all_restaurants_in_city: { run: booking.get_all_restaurants_in_city, returns: 'str' as const, readOnly: true },
  get_cuisine_type_for_restaurants: read(booking.get_cuisine_type_for_restaurants, 'str'),
  get_restaurants_address: read(booking.get_restaurants_address, 'str'),
  get_rating_reviews_for_restaurants: read(booking.get_rating_reviews_for_restaurants, 'str'),
  get_dietary_restrictions_for_all_restaurants: read(booking.get_dietary_restrictions_for_all_restaurants, 'str'),
  get_contact_information_for_restaurants: read(booking.get_contact_information_for_restaurants, 'str'),
  get_price_for_restaurants: read(booking.get_price_for_restaurants, 'float'),
  check_restaurant_opening_hours: read(booking.check_restaurant_opening_hours, 'str'),
  get_all_car_rental_companies_in_city: { run: booking.get_all_car_rental_companies_in_city, returns: 'str' as const, readOnly: true },
  get_car_types_available: read(booking.get_car_types_available, list('any')),
  get_rating_reviews_for_car_rental: read(booking.get_rating_reviews_for_car_rental, 'str'),
  get_car_fuel_options: read(booking.get_car_fuel_options, list('any')),
  get_car_rental_address: read(booking.get_car_rental_address, 'str'),
  get_car_price_per_day: read(booking.get_car_price_per_day, 'float'),
  reserve_hotel: { run: booking.reserve_hotel, returns: 'str' as const },
  reserve_car_rental: { run: booking.reserve_car_rental, returns: 'str' as const },
  reserve_restaurant: { run: booking.reserve_restaurant, returns: 'str' as const },
  get_flight_information: { run: booking.get_flight_information, returns: 'str' as const, readOnly: true },
};

export const agentdojoTravelShim = defineAgentDojoSuite<TravelWorld & Json>({
  suite: 'travel',
  description: "AgentDojo's travel suite: hotels, restaurants, car rentals and flights to look up and book, with a calendar and an inbox (Emma Johnson's).",
  environment: 'any',
  load: (environment) => travelWorldOf(environment as Record<string, unknown>) as TravelWorld & Json,
  tools: agentdojoTools<TravelWorld & Json>(TOOLS, TOOL_SPECS, { ...OFFICE_WIRING, ...BOOKING_WIRING } as never),
});

export const travelSuite: AgentDojoSuite = { suite: 'travel', shim: agentdojoTravelShim as never, checks: travelChecks as never };

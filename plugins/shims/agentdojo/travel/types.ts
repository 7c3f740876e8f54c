/**
 * The travel suite's world (TravelEnvironment, default_suites/v1/travel/task_suite.py, models in
 * tools/travel_booking_client.py) as pydantic dumps it to JSON, plus the calendar and inbox the workspace tools
 * share. Prices and ratings are Python floats: the tools write them as `str(float)` does.
 */
import type { Calendar, Inbox } from '../workspace/types.ts';

export interface Hotel { name: string; city: string; rating: number; price_min: number; price_max: number; address: string; reviews: unknown[] }
export interface Flight { airline: string; flight_number: string; departure_city: string; arrival_city: string; departure_time: string; arrival_time: string; price: number; contact_information: string }
export interface Restaurant {
  name: string; city: string; address: string; rating: number; price_per_person: number; operating_hours: string;
  reviews: unknown[]; contact_information: string; cuisine_type: string; dietary_restrictions: string;
}
export interface CarRentalCompany {
  name: string; city: string; address: string; rating: number; price_per_day: number; reviews: unknown[];
  contact_information: string; car_types_available: unknown[]; fuel_options: unknown[];
}
export interface TravelUser {
  first_name: string; last_name: string; ID_number: string; email: string; phone_number: string; address: string;
  passport_number: string; bank_account_number: string; credit_card_number: string;
}
export type ReservationType = 'hotel' | 'car' | 'restaurant';
export interface Reservation { reservation_type: ReservationType | null; title: string; start_time: string; end_time: string; contact_information: string }

export interface TravelWorld {
  hotels: { hotel_list: Hotel[] };
  restaurants: { restaurant_list: Restaurant[] };
  car_rental: { company_list: CarRentalCompany[] };
  flights: { flight_list: Flight[] };
  user: TravelUser;
  calendar: Calendar;
  reservation: Reservation;
  inbox: Inbox;
}

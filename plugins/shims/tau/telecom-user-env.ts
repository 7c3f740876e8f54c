/**
 * The functions of τ²-bench's telecom user toolkit that are no tool of the user's (tau2-bench a2c0247,
 * `user_tools.py`): what a task's initialization actions on the user's side run (`set_user_info`,
 * `turn_airplane_mode_on`, `break_apn_settings`, …) and the env assertions its gold checks (`assert_*`), with
 * their results. Each initialization function changes the world in place (a copy, telecom-device.ts `editable`).
 */
import { Refusal } from './shared.ts';
import {
  canSendMms, connectVpn, mobileDataWorking, simulateNetworkSearch, speedTest, toggleAirplaneMode, type TelecomUserDb,
} from './telecom-device.ts';
import { USER_TOOLS } from './telecom-user-tools.ts';

type Params = Record<string, unknown>;

/** Calls `flip` once, and again when the first call did not reach `wanted` (the reference's `turn_*_on/off`). */
function turn(db: TelecomUserDb, flip: (db: TelecomUserDb) => boolean, wanted: boolean): void {
  if (flip(db) !== wanted) flip(db);
}

const flipField = (field: 'data_enabled' | 'roaming_enabled' | 'data_saver_mode', search: boolean) => (db: TelecomUserDb) => {
  db.device[field] = !db.device[field];
  if (search) simulateNetworkSearch(db);
  return db.device[field];
};

/** The user side's initialization functions, by name: each changes `db` in place. */
export const USER_ENV_FUNCTIONS: Record<string, (db: TelecomUserDb, params: Params) => void> = {
  set_user_info: (db, params) => {
    db.surroundings.name = params.name as string;
    db.surroundings.phone_number = params.phone_number as string;
  },
  set_user_location: (db, params) => {
    db.surroundings.is_abroad = params.abroad as boolean;
  },
  turn_airplane_mode_on: (db) => turn(db, toggleAirplaneMode, true),
  turn_airplane_mode_off: (db) => turn(db, toggleAirplaneMode, false),
  unseat_sim_card: (db) => {
    db.device.sim_card_missing = true;
    simulateNetworkSearch(db);
  },
  lock_sim_card: (db, params) => {
    if (params.mode === 'pin') db.device.sim_card_status = 'locked_pin';
    else if (params.mode === 'puk') db.device.sim_card_status = 'locked_puk';
    simulateNetworkSearch(db);
  },
  // The reference's turn_data_on sets the switch without a network search; the others toggle.
  turn_data_on: (db) => {
    db.device.data_enabled = true;
  },
  turn_data_off: (db) => turn(db, flipField('data_enabled', true), false),
  turn_roaming_on: (db) => turn(db, flipField('roaming_enabled', true), true),
  turn_roaming_off: (db) => turn(db, flipField('roaming_enabled', true), false),
  turn_data_saver_mode_on: (db) => turn(db, flipField('data_saver_mode', false), true),
  turn_data_saver_mode_off: (db) => turn(db, flipField('data_saver_mode', false), false),
  break_apn_settings: (db) => {
    db.device.active_apn_settings.apn_name = 'broken';
    simulateNetworkSearch(db);
  },
  break_apn_mms_setting: (db) => {
    db.device.active_apn_settings.mmsc_url = null;
  },
  set_wifi_calling: (db, params) => {
    db.device.wifi_calling_enabled = params.enabled as boolean;
    if (params.mms_over_wifi !== undefined && params.mms_over_wifi !== null) db.device.wifi_calling_mms_over_wifi = params.mms_over_wifi as boolean;
  },
  break_vpn: (db) => {
    connectVpn(db);
    // The reference degrades the toolkit's shared default profile in place: a later connect_vpn gets it too.
    if (db.device.vpn_details) db.device.vpn_details.server_performance = 'poor';
    db.default_vpn_degraded = true;
  },
  remove_app_permission: (db, params) => {
    const app = db.device.app_statuses[params.app_name as string];
    const permission = (params.permission as string).toLowerCase();
    if (app && Object.hasOwn(app.permissions, permission)) (app.permissions as Record<string, boolean>)[permission] = false;
  },
  simulate_network_search: (db) => simulateNetworkSearch(db),
  // The tools are functions of the toolkit too: a task may initialise with one (their answers unused).
  ...Object.fromEntries(Object.entries(USER_TOOLS).map(([name, tool]) => [name, (db: TelecomUserDb, params: Params) => void tool(db, params)])),
};

/** The user side's env assertions (`assert_*`), by name: true when the world is as expected. */
export const USER_ASSERTIONS: Record<string, (db: TelecomUserDb, params: Params) => boolean> = {
  assert_airplane_mode_status: (db, params) => db.device.airplane_mode === params.expected_status,
  assert_service_status: (db, params) => {
    if (!['connected', 'searching', 'no_service', 'emergency_only'].includes(params.expected_status as string)) throw new Refusal('invalid', `'${String(params.expected_status)}' is not a valid NetworkStatus`);
    return db.device.network_connection_status === params.expected_status;
  },
  assert_mobile_data_status: (db, params) => mobileDataWorking(db) === params.expected_status,
  assert_mobile_roaming_status: (db, params) => db.device.roaming_enabled === params.expected_status,
  assert_mobile_data_saver_mode_status: (db, params) => db.device.data_saver_mode === params.expected_status,
  assert_internet_speed: (db, params) => {
    const { speed, description } = speedTest(db);
    const measured = speed ?? 0.0;
    const expectedDescription = params.expected_desc as string | null | undefined;
    if (expectedDescription === undefined || expectedDescription === null) return measured >= (params.expected_speed as number);
    return measured >= (params.expected_speed as number) && description.toLowerCase() === expectedDescription.toLowerCase();
  },
  assert_internet_not_excellent: (db) => speedTest(db).description.toLowerCase() !== 'excellent',
  assert_can_send_mms: (db, params) => canSendMms(db) === params.expected_status,
  assert_mobile_data_usage_exceeded: (db, params) => db.surroundings.mobile_data_usage_exceeded === params.expected_status,
};

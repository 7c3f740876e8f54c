/**
 * τ²-bench's telecom user toolkit (tau2-bench a2c0247, `domains/telecom/user_tools.py`, the `@is_tool` methods of
 * `TelecomUserTools`): what the simulated user can do on their phone, under τ-bench's names, with its answers word
 * for word. Each tool runs on a copy of the user's world (telecom-device.ts `editable`) when it writes.
 */
import type { Json } from '../../../core/shim.ts';
import { pyFloatString, roundMoney } from './shared.ts';
import {
  DEFAULT_APN, canSendMms, connectVpn, disconnectVpn, simStatus, simulateNetworkSearch, speedTest, statusBar, toggleAirplaneMode,
  type TelecomUserDb,
} from './telecom-device.ts';

type Params = Record<string, unknown>;
/** A tool: its answer (always text, as the reference's), run on a world it may change in place. */
type UserTool = (db: TelecomUserDb, params: Params) => string;

const withBar = (db: TelecomUserDb, text: string) => `${text}\nStatus Bar: ${statusBar(db)}`;
const onOff = (value: boolean) => (value ? 'ON' : 'OFF');
const MODES = ['4g_5g_preferred', '4g_only', '3g_only', '2g_only'];
const SIM_TEXT: Record<string, string> = {
  active: 'Your SIM card is active and working.', missing: 'No SIM card detected in the phone.',
  locked_pin: 'The SIM card is locked with a PIN code.', locked_puk: 'The SIM card is locked with a PUK code.',
};
const SPEED_ADVICE: Record<string, string> = {
  'Very Poor': 'Connection is very slow. Basic web browsing might be difficult.',
  Poor: 'Connection is slow. Web browsing may be sluggish, streaming difficult.',
  Fair: 'Connection is okay for web browsing and some standard definition streaming.',
  Good: 'Connection is good for most activities, including HD streaming.',
  Excellent: 'Connection is very fast.',
};

/** Python's `repr` of a string: single quotes unless the text holds one and no double quote. */
export function pyRepr(value: string | null): string {
  if (value === null) return 'None';
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return `${quote}${quote === "'" ? escaped.replace(/'/g, "\\'") : escaped}${quote}`;
}

const PERFORMANCE_NAME: Record<string, string> = { unknown: 'UNKNOWN', poor: 'POOR', fair: 'FAIR', good: 'GOOD', excellent: 'EXCELLENT' };

/** `VpnDetails.model_dump()` printed by an f-string: a dict whose enum member shows its repr. */
function vpnDetailsText(details: NonNullable<TelecomUserDb['device']['vpn_details']>): string {
  const performance = `<PerformanceLevel.${PERFORMANCE_NAME[details.server_performance]}: '${details.server_performance}'>`;
  return `{'server_address': ${pyRepr(details.server_address)}, 'protocol': ${pyRepr(details.protocol)}, 'server_performance': ${performance}}`;
}

const granted = (db: TelecomUserDb, app: string) => Object.entries(db.device.app_statuses[app].permissions).filter(([, allowed]) => allowed).map(([name]) => name.replace(/_/g, ' ').toLowerCase());

function checkNetworkStatus(db: TelecomUserDb): string {
  const { device } = db;
  const lines = [
    `Airplane Mode: ${onOff(device.airplane_mode)}`, `SIM Card Status: ${simStatus(device)}`, `Cellular Connection: ${device.network_connection_status}`,
    `Cellular Signal: ${device.network_signal_strength}`, `Cellular Network Type: ${device.network_technology_connected}`,
    `Mobile Data Enabled: ${device.data_enabled ? 'Yes' : 'No'}`, `Data Roaming Enabled: ${device.roaming_enabled ? 'Yes' : 'No'}`,
    `Wi-Fi Radio: ${onOff(device.wifi_enabled)}`, `Wi-Fi Connected: ${device.wifi_connected ? 'Yes' : 'No'}`,
  ];
  if (device.wifi_connected) lines.push(`Connected Wi-Fi Network: ${device.wifi_ssid ?? 'None'}`);
  return lines.join('\n');
}

function setNetworkModePreference(db: TelecomUserDb, params: Params): string {
  const mode = params.mode as string;
  if (!MODES.includes(mode)) return `Failed to set network mode: '${mode}' is not a valid option. Please use one of: ${MODES.join(', ')}\nStatus Bar: ${statusBar(db)}`;
  db.device.network_mode_preference = mode;
  simulateNetworkSearch(db);
  return withBar(db, `Preferred Network Mode set to: ${mode}`);
}

function runSpeedTest(db: TelecomUserDb): string {
  const { speed, description } = speedTest(db);
  if (speed === null) return `Speed test failed: ${description || 'Could not determine speed'}.`;
  return `Speed Test Result: ${roundMoney(speed).toFixed(2)} Mbps (${description}). ${SPEED_ADVICE[description] ?? ''}`;
}

function toggle(db: TelecomUserDb, field: 'data_enabled' | 'roaming_enabled' | 'data_saver_mode' | 'wifi_calling_enabled', label: string, search: boolean): string {
  db.device[field] = !db.device[field];
  if (search) simulateNetworkSearch(db);
  return withBar(db, `${label} is now ${onOff(db.device[field])}.`);
}

function checkApnSettings(db: TelecomUserDb): string {
  const apn = db.device.active_apn_settings;
  return `Current APN Name: ${apn.apn_name || 'Not Set'}\nMMSC URL (for picture messages): ${apn.mmsc_url || 'Not Set'}\n(These are technical settings, usually best left unchanged.)`;
}

function setApnSettings(db: TelecomUserDb, params: Params): string {
  // APNSettings(**apn_settings): the fields given over the model's defaults (the schema refused others).
  const settings = { ...DEFAULT_APN(), ...(params.apn_settings as Record<string, Json>) } as ReturnType<typeof DEFAULT_APN>;
  db.device.active_apn_settings = settings;
  simulateNetworkSearch(db);
  return withBar(db, `APN settings set to: ${settings.apn_name}`);
}

function checkWifiStatus({ device }: TelecomUserDb): string {
  if (!device.wifi_enabled) return 'Wi-Fi is turned OFF.';
  return device.wifi_connected ? `Wi-Fi is ON and connected to '${device.wifi_ssid ?? 'None'}'. Signal strength: ${device.wifi_signal_strength}.` : 'Wi-Fi is ON but not connected to any network.';
}

function toggleWifi(db: TelecomUserDb): string {
  const { device } = db;
  if (device.airplane_mode) return `Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ${statusBar(db)}`;
  device.wifi_enabled = !device.wifi_enabled;
  if (!device.wifi_enabled) {
    device.wifi_connected = false;
    device.wifi_ssid = null;
    device.wifi_signal_strength = 'none';
  }
  return withBar(db, `Wi-Fi is now ${onOff(device.wifi_enabled)}.`);
}

function checkVpnStatus({ device }: TelecomUserDb): string {
  if (device.vpn_connected) return device.vpn_details ? `VPN is ON and connected. Details: ${vpnDetailsText(device.vpn_details)}` : 'VPN is ON and connected (no specific details available).';
  return device.vpn_enabled_setting ? 'VPN is turned ON in settings, but currently not connected.' : 'VPN is turned OFF.';
}

function checkAppStatus(db: TelecomUserDb, params: Params): string {
  const app = params.app_name as string;
  if (!Object.hasOwn(db.device.app_statuses, app)) return `App '${app}' not found on this phone.`;
  const allowed = granted(db, app);
  return [`Status for App: ${app}`, ...(allowed.length ? [' - Permissions Granted:', ...allowed.map((name) => `   - ${name}`)] : [' - Permissions: None granted.'])].join('\n');
}

function checkAppPermissions(db: TelecomUserDb, params: Params): string {
  const app = params.app_name as string;
  if (!Object.hasOwn(db.device.app_statuses, app)) return `App '${app}' not found on this phone.`;
  const allowed = granted(db, app);
  return allowed.length ? `App '${app}' has permission for: ${allowed.join(', ')}.` : `App '${app}' currently has no permissions granted.`;
}

function grantAppPermission(db: TelecomUserDb, params: Params): string {
  const app = params.app_name as string;
  const permission = (params.permission as string).toLowerCase();
  let message: string;
  let success = false;
  if (!Object.hasOwn(db.device.app_statuses, app)) message = `App '${app}' not found. Cannot grant permission.`;
  else {
    const permissions = db.device.app_statuses[app].permissions;
    const available = Object.keys(permissions);
    if (!available.includes(permission)) message = `Permission '${permission}' not tracked for app '${app}', available permissions: [${available.map(pyRepr).join(', ')}]`;
    else {
      (permissions as Record<string, boolean>)[permission] = true;
      success = true;
      message = `Permission '${permission}' granted to app '${app}'.`;
    }
  }
  return withBar(db, `${success ? 'Success. ' : 'Error. '}${message}`);
}

function rebootDevice(db: TelecomUserDb): string {
  const lines: string[] = [];
  if (db.device.active_apn_settings.reset_at_reboot) {
    lines.push('Resetting APN settings...');
    db.device.active_apn_settings = DEFAULT_APN();
  }
  lines.push('Restarting network services...');
  db.device.network_connection_status = 'searching';
  simulateNetworkSearch(db);
  return withBar(db, lines.join('\n'));
}

function makePayment(db: TelecomUserDb): string {
  const request = db.surroundings.payment_request;
  if (!request) return 'You do not have a payment request.';
  request.paid = true;
  return `Payment of ${pyFloatString(request.amount_due)} USD has been made for bill ${request.bill_id}.`;
}

/** The tools, by name; `writes` lists those that may change the world (the rest read it). */
export const USER_TOOLS: Record<string, UserTool> = {
  check_status_bar: (db) => `Status Bar: ${statusBar(db)}`,
  check_network_status: checkNetworkStatus,
  check_network_mode_preference: (db) => `Network Mode Preference: ${db.device.network_mode_preference}`,
  set_network_mode_preference: setNetworkModePreference,
  run_speed_test: runSpeedTest,
  toggle_airplane_mode: (db) => withBar(db, `Airplane Mode is now ${onOff(toggleAirplaneMode(db))}.`),
  check_sim_status: (db) => SIM_TEXT[simStatus(db.device)] ?? `Unknown SIM status: ${simStatus(db.device)}`,
  reseat_sim_card: (db) => {
    db.device.sim_card_missing = false;
    simulateNetworkSearch(db);
    return withBar(db, 'SIM card re-seated successfully.');
  },
  toggle_data: (db) => toggle(db, 'data_enabled', 'Mobile Data', true),
  toggle_roaming: (db) => toggle(db, 'roaming_enabled', 'Data Roaming', true),
  check_data_restriction_status: (db) => (db.device.data_saver_mode ? 'Data Saver mode is ON (limits data usage).' : 'Data Saver mode is OFF.'),
  toggle_data_saver_mode: (db) => toggle(db, 'data_saver_mode', 'Data Saver Mode', false),
  check_apn_settings: checkApnSettings,
  set_apn_settings: setApnSettings,
  reset_apn_settings: (db) => {
    db.device.active_apn_settings.reset_at_reboot = true;
    simulateNetworkSearch(db);
    return withBar(db, 'APN settings will reset at reboot.');
  },
  check_wifi_status: checkWifiStatus,
  toggle_wifi: toggleWifi,
  check_wifi_calling_status: (db) => `Wi-Fi Calling is currently turned ${onOff(db.device.wifi_calling_enabled)}.`,
  toggle_wifi_calling: (db) => toggle(db, 'wifi_calling_enabled', 'Wi-Fi Calling', false),
  check_vpn_status: checkVpnStatus,
  connect_vpn: (db) => {
    const connected = connectVpn(db);
    return connected === null ? 'VPN already connected.' : withBar(db, 'VPN connected successfully.');
  },
  disconnect_vpn: (db) => withBar(db, disconnectVpn(db) ? 'VPN disconnected successfully.' : 'No active VPN connection to disconnect.'),
  check_installed_apps: (db) => `The following apps are installed on the phone: ${Object.keys(db.device.app_statuses).join(', ')}`,
  check_app_status: checkAppStatus,
  check_app_permissions: checkAppPermissions,
  grant_app_permission: grantAppPermission,
  can_send_mms: (db) => (canSendMms(db) ? 'Your messaging app can send MMS messages.' : 'Your messaging app cannot send MMS messages.'),
  reboot_device: rebootDevice,
  check_payment_request: ({ surroundings: { payment_request: request } }) => (request ? `You have a payment request for bill ${request.bill_id} of ${pyFloatString(request.amount_due)} USD.` : 'No payment request has been made.'),
  make_payment: makePayment,
};

/** The tools that only read the world (`ToolType.READ` in the reference). */
export const READ_TOOLS = new Set(['check_status_bar', 'check_network_status', 'check_network_mode_preference', 'run_speed_test', 'check_sim_status', 'check_data_restriction_status', 'check_apn_settings', 'check_wifi_status', 'check_wifi_calling_status', 'check_vpn_status', 'check_installed_apps', 'check_app_status', 'check_app_permissions', 'can_send_mms', 'check_payment_request']);

/**
 * The user's side of τ²-bench's telecom domain: the phone and its surroundings (tau2-bench a2c0247,
 * `domains/telecom/user_data_model.py`, `TelecomUserDB`), and the simulation its user toolkit runs on them
 * (`user_tools.py`: the network search, the status bar, whether mobile data works, the speed test, MMS). The
 * state is the user database as τ-bench's own hash sees it (pydantic's `model_dump()` in JSON, enums as their
 * values); a tool works on a copy (`editable`), as the reference mutates its model in place.
 */
import type { JsonObject } from './shared.ts';
import { roundMoney } from './shared.ts';

/** The phone's APN configuration (`APNSettings`). */
export interface ApnSettings extends JsonObject { apn_name: string; reset_at_reboot: boolean; mms_apn: string | null; mmsc_url: string | null; mms_proxy: string | null; mms_port: number | null }
interface Permissions extends JsonObject { sms: boolean; storage: boolean; phone: boolean; network: boolean }
interface AppStatus extends JsonObject { app_name: string; permissions: Permissions }
interface VpnDetails extends JsonObject { server_address: string | null; protocol: string | null; server_performance: string }

/** `MockPhoneAttributes`. */
export interface Device extends JsonObject {
  sim_card_status: string; sim_card_missing: boolean; airplane_mode: boolean; network_signal_strength: string; network_technology_connected: string;
  network_connection_status: string; battery_level: number; data_enabled: boolean; roaming_enabled: boolean; network_mode_preference: string;
  active_apn_settings: ApnSettings; wifi_enabled: boolean; wifi_connected: boolean; wifi_ssid: string | null; wifi_signal_strength: string;
  wifi_calling_enabled: boolean; wifi_calling_mms_over_wifi: boolean; data_saver_mode: boolean; vpn_enabled_setting: boolean; vpn_connected: boolean;
  vpn_details: VpnDetails | null; app_statuses: { [app: string]: AppStatus };
}

/** `PaymentRequest`: a bill the agent asked the user to pay. */
export interface PaymentRequest extends JsonObject { bill_id: string; amount_due: number; paid: boolean }

/** `UserSurroundings`. */
export interface Surroundings extends JsonObject {
  name: string | null; phone_number: string | null; is_abroad: boolean; roaming_allowed: boolean; signal_strength: { [technology: string]: string };
  mobile_data_usage_exceeded: boolean; line_active: boolean; payment_request: PaymentRequest | null;
}

/**
 * The user's world: `TelecomUserDB`, plus what the reference keeps outside it: `default_vpn_degraded` is true
 * once `break_vpn` has degraded the toolkit's shared default VPN profile in place (a class attribute there), so
 * a later `connect_vpn` connects to the poor one. The view (and the hash) leave it out.
 */
export interface TelecomUserDb extends JsonObject { device: Device; surroundings: Surroundings; default_vpn_degraded: boolean }

/** `APNSettings()`: the defaults a reboot restores after `reset_apn_settings`. */
export const DEFAULT_APN = (): ApnSettings => ({ apn_name: 'internet', reset_at_reboot: false, mms_apn: 'mms', mmsc_url: 'http://mms.carrier.com/mms/wapenc', mms_proxy: null, mms_port: null });

/** The release's `user_db.toml` as `TelecomUserDB` validates it (the model's defaults fill what the file omits). */
export function defaultUserDb(): TelecomUserDb {
  return {
    device: {
      sim_card_status: 'active', sim_card_missing: false, airplane_mode: false, network_signal_strength: 'good', network_technology_connected: '5G',
      network_connection_status: 'connected', battery_level: 80, data_enabled: true, roaming_enabled: false, network_mode_preference: '4g_5g_preferred',
      active_apn_settings: DEFAULT_APN(), wifi_enabled: false, wifi_connected: false, wifi_ssid: null, wifi_signal_strength: 'none',
      wifi_calling_enabled: false, wifi_calling_mms_over_wifi: false, data_saver_mode: false, vpn_enabled_setting: false, vpn_connected: false, vpn_details: null,
      app_statuses: {
        messaging: { app_name: 'messaging', permissions: { sms: true, storage: true, phone: true, network: false } },
        browser: { app_name: 'browser', permissions: { sms: false, storage: true, phone: false, network: true } },
      },
    },
    surroundings: {
      name: null, phone_number: null, is_abroad: false, roaming_allowed: false, signal_strength: { '2G': 'poor', '3G': 'fair', '4G': 'good', '5G': 'excellent' },
      mobile_data_usage_exceeded: false, line_active: true, payment_request: null,
    },
    default_vpn_degraded: false,
  };
}

/**
 * A copy of the world a tool may change in place, as the reference changes its model: the device, its APN
 * settings, its apps and the surroundings are fresh objects; the rest is shared with `db` (never mutated).
 */
export function editable(db: TelecomUserDb): TelecomUserDb {
  const { device, surroundings } = db;
  const apps: Device['app_statuses'] = {};
  for (const [name, app] of Object.entries(device.app_statuses)) apps[name] = { ...app, permissions: { ...app.permissions } };
  return {
    ...db,
    device: { ...device, active_apn_settings: { ...device.active_apn_settings }, vpn_details: device.vpn_details && { ...device.vpn_details }, app_statuses: apps },
    surroundings: { ...surroundings, payment_request: surroundings.payment_request && { ...surroundings.payment_request } },
  };
}

/** `_check_sim_status`: a missing card first, else the card's status. */
export const simStatus = (device: Device) => (device.sim_card_missing ? 'missing' : device.sim_card_status);

const noService = (device: Device) => {
  device.network_connection_status = 'no_service';
  device.network_technology_connected = 'none';
  device.network_signal_strength = 'none';
};

const MODE_TECHNOLOGY: Record<string, string> = { '4g_only': '4G', '3g_only': '3G', '2g_only': '2G' };

/** `simulate_network_search`: what the phone connects to, from its SIM, preferences, APN, airplane mode and line. */
export function simulateNetworkSearch(db: TelecomUserDb): void {
  const { device, surroundings } = db;
  if (simStatus(device) === 'active') {
    device.network_connection_status = 'connected';
    const signal = (technology: string) => surroundings.signal_strength[technology] ?? 'none';
    if (device.network_mode_preference === '4g_5g_preferred' && signal('5G') !== 'none') {
      device.network_technology_connected = '5G';
      device.network_signal_strength = signal('5G');
    } else {
      const technology = MODE_TECHNOLOGY[device.network_mode_preference] ?? '4G';
      device.network_technology_connected = technology;
      device.network_signal_strength = signal(technology);
    }
  } else noService(device);
  if (device.airplane_mode || device.active_apn_settings.apn_name === 'broken' || !surroundings.line_active) noService(device);
}

const SIGNAL_BARS: Record<string, string> = { none: '📵 No Signal', poor: '📶¹ Poor', fair: '📶² Fair', good: '📶³ Good', excellent: '📶⁴ Excellent' };

/** `_check_status_bar`: the icons at the top of the screen. */
export function statusBar({ device }: TelecomUserDb): string {
  const indicators: string[] = [];
  if (device.airplane_mode) indicators.push('✈️ Airplane Mode');
  else {
    indicators.push(SIGNAL_BARS[device.network_signal_strength] ?? '📵 No Signal');
    const connected = device.network_technology_connected !== 'none';
    if (connected) indicators.push(device.network_technology_connected);
    if (device.data_enabled && connected) {
      indicators.push('📱 Data Enabled');
      if (device.data_saver_mode) indicators.push('🔽 Data Saver');
    } else indicators.push('📵 Data Disabled');
  }
  if (device.wifi_enabled && device.wifi_connected) indicators.push(device.wifi_ssid ? `📡 Connected to ${device.wifi_ssid}` : '📡 Enabled');
  if (device.vpn_connected) indicators.push('🔒 VPN Connected');
  indicators.push(`🔋 ${device.battery_level}%`);
  return indicators.join(' | ');
}

/** `_get_mobile_data_working`. */
export function mobileDataWorking({ device, surroundings }: TelecomUserDb): boolean {
  if (device.airplane_mode || device.network_signal_strength === 'none') return false;
  if (device.network_connection_status === 'no_service') return false;
  if (surroundings.is_abroad && (!device.roaming_enabled || !surroundings.roaming_allowed)) return false;
  if (!device.data_enabled) return false;
  return !surroundings.mobile_data_usage_exceeded;
}

const SPEED_RANGE: Record<string, [number, number]> = { '2G': [0.1, 0.4], '3G': [1.0, 5.0], '4G': [10.0, 100.0], '5G': [50.0, 500.0], none: [0.0, 0.0] };
const SIGNAL_FACTOR: Record<string, number> = { poor: 0.2, fair: 0.5, good: 0.8, excellent: 1.0, none: 0.0 };

/** `_run_speed_test`: the speed in Mbps (Python's `round(x, 2)`) and its description, or no speed and why. */
export function speedTest(db: TelecomUserDb): { speed: number | null; description: string } {
  if (!mobileDataWorking(db)) return { speed: null, description: 'No Connection' };
  const { device } = db;
  let factor = device.vpn_connected && device.vpn_details && device.vpn_details.server_performance === 'poor' ? 0.1 : 1.0;
  if (device.data_saver_mode) factor *= 0.2;
  const [min, max] = SPEED_RANGE[device.network_technology_connected] ?? [0.0, 0.0];
  // The reference's order of operations, for the same float.
  const speed = roundMoney(((min + max) / 2.0) * (SIGNAL_FACTOR[device.network_signal_strength] ?? 0.0) * factor);
  const description = speed < 1 ? 'Very Poor' : speed < 5 ? 'Poor' : speed < 25 ? 'Fair' : speed < 100 ? 'Good' : 'Excellent';
  return { speed, description };
}

/** `_can_send_mms`. */
export function canSendMms(db: TelecomUserDb): boolean {
  const { device } = db;
  if (!mobileDataWorking(db) || device.network_technology_connected === '2G') return false;
  if (device.wifi_calling_enabled && device.wifi_calling_mms_over_wifi) return false;
  if (device.active_apn_settings.mmsc_url === null) return false;
  const messaging = device.app_statuses.messaging;
  return Boolean(messaging && messaging.permissions.storage && messaging.permissions.sms);
}

/** `_disconnect_vpn`: false when there was no connection. */
export function disconnectVpn({ device }: TelecomUserDb): boolean {
  if (!device.vpn_connected) return false;
  device.vpn_connected = false;
  device.vpn_details = null;
  return true;
}

/** `_connect_vpn`: the toolkit's default profile (degraded once `break_vpn` ran); null when already connected. */
export function connectVpn(db: TelecomUserDb): boolean | null {
  if (db.device.vpn_connected) return null;
  db.device.vpn_connected = true;
  db.device.vpn_details = { server_address: '192.168.1.1', protocol: 'OpenVPN', server_performance: db.default_vpn_degraded ? 'poor' : 'excellent' };
  return true;
}

/** `_toggle_airplane_mode`: the new state; turning it on drops Wi-Fi and the VPN, either way the network is searched. */
export function toggleAirplaneMode(db: TelecomUserDb): boolean {
  const { device } = db;
  const wasOn = device.airplane_mode;
  device.airplane_mode = !wasOn;
  if (wasOn) device.network_connection_status = 'searching';
  if (!wasOn || device.wifi_enabled) {
    device.wifi_connected = false;
    device.wifi_ssid = null;
    device.wifi_signal_strength = 'none';
  }
  if (!wasOn && device.vpn_connected) disconnectVpn(db);
  simulateNetworkSearch(db);
  return device.airplane_mode;
}

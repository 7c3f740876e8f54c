/**
 * `tau_telecom_user` on the release's device (user_db.toml): the conformance suite with a script reaching every
 * tool of τ²-bench's user toolkit, their answers word for word (status bar, speed test, VPN details as Python
 * prints them), the initialization functions and env assertions tasks use, and the sync with the carrier's side.
 * fidelity-telecom.test.ts compares all of it with the reference's environment over every base task.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testShim } from '../../../testing/index.ts';
import type { ShimOutcome } from '../../../core/shim.ts';
import { tauTelecomUserShim } from './telecom-user.ts';
import { defaultUserDb, editable, type TelecomUserDb } from './telecom-device.ts';
import { USER_ASSERTIONS, USER_ENV_FUNCTIONS } from './telecom-user-env.ts';
import { initializeTelecomWorlds, syncTelecom } from './telecom-sync.ts';
import { initializeTelecomDb, type TelecomDb } from './telecom.ts';

const DB_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'catalog', 'data', 'tau-bench', 'domains', 'telecom', 'db.json.gz');
const telecomDb = () => JSON.parse(gunzipSync(readFileSync(DB_FILE)).toString('utf8')) as TelecomDb;
const shim = tauTelecomUserShim();
const says = (text: string) => (outcome: ShimOutcome) => expect((outcome as { result: string }).result).toBe(text);
const BAR = 'Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%';

/** The device after `calls` (user-side initialization functions), synced with the release's carrier database. */
function device(...calls: Array<[string, Record<string, unknown>?]>): TelecomUserDb {
  return initializeTelecomWorlds(telecomDb(), [{ env_type: 'user', func_name: 'set_user_info', arguments: { name: 'John Smith', phone_number: '555-123-2002' } }, ...calls.map(([func_name, args]) => ({ env_type: 'user', func_name, arguments: args ?? {} }))]).user;
}

testShim(shim as never, {
  seed: device(['break_vpn'], ['break_apn_mms_setting']),
  failuresAsResults: "τ²-bench's user tools answer every failure in words ('App 'camera' not found on this phone.'), never raise",
  steps: [
    { action: 'check_status_bar', params: {}, expect: says('Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%') },
    { action: 'check_network_status', params: {}, expect: says('Airplane Mode: OFF\nSIM Card Status: active\nCellular Connection: connected\nCellular Signal: good\nCellular Network Type: 5G\nMobile Data Enabled: Yes\nData Roaming Enabled: No\nWi-Fi Radio: OFF\nWi-Fi Connected: No') },
    { action: 'check_network_mode_preference', params: {}, expect: says('Network Mode Preference: 4g_5g_preferred') },
    // The poor VPN of break_vpn: 5G's 275 Mbps × 0.8 (a good signal) × 0.1.
    { action: 'run_speed_test', params: {}, expect: says('Speed Test Result: 22.00 Mbps (Fair). Connection is okay for web browsing and some standard definition streaming.') },
    { action: 'check_vpn_status', params: {}, expect: says("VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.POOR: 'poor'>}") },
    { action: 'disconnect_vpn', params: {}, expect: says(`VPN disconnected successfully.\n${BAR}`) },
    { action: 'disconnect_vpn', params: {}, expect: says(`No active VPN connection to disconnect.\n${BAR}`) },
    // The toolkit's default profile stays degraded, as the reference's class attribute does.
    { action: 'connect_vpn', params: {}, expect: (_, view) => expect((view as any).device.vpn_details.server_performance).toBe('poor') },
    { action: 'connect_vpn', params: {}, expect: says('VPN already connected.') },
    { action: 'set_network_mode_preference', params: { mode: '5g_only' }, expect: says(`Failed to set network mode: '5g_only' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%`) },
    { action: 'set_network_mode_preference', params: { mode: '2g_only' }, expect: says('Preferred Network Mode set to: 2g_only\nStatus Bar: 📶¹ Poor | 2G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%') },
    { action: 'can_send_mms', params: {}, expect: says('Your messaging app cannot send MMS messages.') },
    { action: 'check_apn_settings', params: {}, expect: says('Current APN Name: internet\nMMSC URL (for picture messages): Not Set\n(These are technical settings, usually best left unchanged.)') },
    { action: 'reset_apn_settings', params: {}, expect: (outcome) => expect((outcome as { result: string }).result).toMatch(/^APN settings will reset at reboot\.\nStatus Bar: /) },
    { action: 'reboot_device', params: {}, expect: (outcome, view) => { expect((outcome as { result: string }).result).toMatch(/^Resetting APN settings\.\.\.\nRestarting network services\.\.\./); expect((view as any).device.active_apn_settings.mmsc_url).toBe('http://mms.carrier.com/mms/wapenc'); } },
    { action: 'set_apn_settings', params: { apn_settings: { apn_name: 'broken' } }, expect: says('APN settings set to: broken\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔒 VPN Connected | 🔋 80%') },
    { action: 'toggle_airplane_mode', params: {}, expect: says('Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%') },
    { action: 'toggle_wifi', params: {}, expect: says('Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%') },
    { action: 'toggle_airplane_mode', params: {} },
    { action: 'toggle_wifi', params: {}, expect: (outcome) => expect((outcome as { result: string }).result).toMatch(/^Wi-Fi is now ON\./) },
    { action: 'check_wifi_status', params: {}, expect: says('Wi-Fi is ON but not connected to any network.') },
    { action: 'check_sim_status', params: {}, expect: says('Your SIM card is active and working.') },
    { action: 'reseat_sim_card', params: {} },
    { action: 'toggle_data', params: {} },
    { action: 'toggle_roaming', params: {} },
    { action: 'check_data_restriction_status', params: {}, expect: says('Data Saver mode is OFF.') },
    { action: 'toggle_data_saver_mode', params: {}, expect: (_, view) => expect((view as any).device.data_saver_mode).toBe(true) },
    { action: 'check_wifi_calling_status', params: {}, expect: says('Wi-Fi Calling is currently turned OFF.') },
    { action: 'toggle_wifi_calling', params: {} },
    { action: 'check_installed_apps', params: {}, expect: says('The following apps are installed on the phone: messaging, browser') },
    { action: 'check_app_status', params: { app_name: 'browser' }, expect: says('Status for App: browser\n - Permissions Granted:\n   - storage\n   - network') },
    { action: 'check_app_permissions', params: { app_name: 'camera' }, expect: says("App 'camera' not found on this phone.") },
    { action: 'grant_app_permission', params: { app_name: 'browser', permission: 'Camera' }, expect: (outcome) => expect((outcome as { result: string }).result).toMatch(/^Error\. Permission 'camera' not tracked for app 'browser', available permissions: \['sms', 'storage', 'phone', 'network'\]\n/) },
    { action: 'grant_app_permission', params: { app_name: 'browser', permission: 'SMS' }, expect: (_, view) => expect((view as any).device.app_statuses.browser.permissions.sms).toBe(true) },
    { action: 'check_payment_request', params: {}, expect: says('No payment request has been made.') },
    { action: 'make_payment', params: {}, expect: says('You do not have a payment request.') },
  ],
});

describe('tau_telecom_user: initialization, assertions and the sync with the carrier', () => {
  it('hides what the reference keeps outside its database (the degraded VPN profile) from the view', async () => {
    const state = device(['break_vpn']);
    expect(state.default_vpn_degraded).toBe(true);
    expect(await shim.view!(state)).not.toHaveProperty('default_vpn_degraded');
  });

  it('turn_*_on/off reach the state asked for whatever it was; env assertions read the derived state', () => {
    const db = editable(defaultUserDb());
    USER_ENV_FUNCTIONS.turn_airplane_mode_on(db, {});
    USER_ENV_FUNCTIONS.turn_airplane_mode_on(db, {});
    expect(db.device.airplane_mode).toBe(true);
    expect(USER_ASSERTIONS.assert_service_status(db, { expected_status: 'no_service' })).toBe(true);
    expect(USER_ASSERTIONS.assert_mobile_data_status(db, { expected_status: false })).toBe(true);
    expect(USER_ASSERTIONS.assert_internet_speed(db, { expected_speed: 200, expected_desc: 'excellent' })).toBe(false);
    expect(() => USER_ASSERTIONS.assert_service_status(db, { expected_status: 'online' })).toThrow("'online' is not a valid NetworkStatus");
  });

  it('follows the carrier: a suspended line is no service, a payment request appears, a paid one pays the bill', () => {
    const suspended = initializeTelecomDb(telecomDb(), [{ env_type: 'assistant', func_name: 'suspend_line_for_overdue_bill', arguments: { customer_id: 'C1001', line_id: 'L1002', new_bill_id: 'B1234321', contract_ended: false } }]);
    let worlds = syncTelecom(suspended, device());
    expect(worlds.user.surroundings.line_active).toBe(false);
    const asked = { ...worlds.agent, bills: worlds.agent.bills.map((bill) => (bill.bill_id === 'B1234321' ? { ...bill, status: 'Awaiting Payment' } : bill)) };
    worlds = syncTelecom(asked, worlds.user);
    expect(worlds.user.surroundings.payment_request).toEqual({ bill_id: 'B1234321', amount_due: 65, paid: false });
    const paying = editable(worlds.user);
    paying.surroundings.payment_request!.paid = true;
    worlds = syncTelecom(worlds.agent, paying);
    expect(worlds.agent.bills.find((bill) => bill.bill_id === 'B1234321')!.status).toBe('Paid');
    expect(worlds.user.surroundings.payment_request).toBeNull();
    // Idempotent: a second sync changes nothing.
    const again = syncTelecom(worlds.agent, worlds.user);
    expect(again.agent).toBe(worlds.agent);
    expect(again.user).toBe(worlds.user);
  });

  it('reconciles the two worlds of a scenario, and leaves a world without the carrier alone', () => {
    const agent = telecomDb();
    const user = device();
    const changed = { ...user, surroundings: { ...user.surroundings, line_active: false } };
    expect(shim.reconcile!({ tau_telecom: agent, tau_telecom_user: changed }, { config: {}, now: '' })).toEqual({ tau_telecom_user: user });
    expect(shim.reconcile!({ tau_telecom_user: changed }, { config: {}, now: '' })).toBeUndefined();
  });
});

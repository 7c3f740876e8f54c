/**
 * `tau_telecom_user`: the user's side of τ²-bench's telecom domain (tau2-bench a2c0247), the second world of its
 * dual control: the user's phone and surroundings (`TelecomUserDB`), the tools the simulated user works it with
 * (`TelecomUserTools`, telecom-user-tools.ts), the env assertions a task's gold checks (`checks`), and the sync
 * that keeps it in step with the carrier's side, `tau_telecom` (`reconcile`: telecom-sync.ts). A scenario names
 * it among its `user_shims`: its tools are then the simulated user's, never the agent's.
 */
import { defineShim, shimError, type Json, type ShimAction } from '../../../core/shim.ts';
import { Refusal, objectSchema } from './shared.ts';
import type { TelecomDb } from './telecom.ts';
import { defaultUserDb, editable, type TelecomUserDb } from './telecom-device.ts';
import { syncTelecom } from './telecom-sync.ts';
import { READ_TOOLS, USER_TOOLS } from './telecom-user-tools.ts';
import { USER_ASSERTIONS } from './telecom-user-env.ts';

/** The tools' descriptions: the reference's docstrings, which are what its user simulator is shown. */
const DESCRIPTIONS: Record<string, string> = {
  check_status_bar: "Shows what icons are currently visible in your phone's status bar (the area at the top of the screen). Displays network signal strength, mobile data status (enabled, disabled, data saver), Wi-Fi status, and battery level.",
  check_network_status: "Checks your phone's connection status to cellular networks and Wi-Fi. Shows airplane mode status, signal strength, network type, whether mobile data is enabled, and whether data roaming is enabled.",
  check_network_mode_preference: 'Shows the current network mode preference.',
  set_network_mode_preference: 'Changes the type of cellular network your phone prefers to connect to (e.g., 5G, LTE/4G, 3G). Higher-speed networks (LTE/5G) provide faster data but may use more battery.',
  run_speed_test: 'Measures your current internet connection speed (download speed). Provides information about connection quality and what activities it can support.',
  toggle_airplane_mode: 'Toggles Airplane Mode ON or OFF. When ON, it disconnects all wireless communications including cellular, Wi-Fi, and Bluetooth. Returns the new state of airplane_mode.',
  check_sim_status: 'Checks if your SIM card is working correctly and displays its current status. Shows if the SIM is active, missing, or locked with a PIN or PUK code.',
  reseat_sim_card: 'Simulates removing and reinserting your SIM card. This can help resolve recognition issues.',
  toggle_data: "Toggles your phone's mobile data connection ON or OFF. Controls whether your phone can use cellular data for internet access when Wi-Fi is unavailable. Returns the new data connection status.",
  toggle_roaming: "Toggles Data Roaming ON or OFF. When ON, your phone can use data networks in areas outside your carrier's coverage. Returns the new data roaming status.",
  check_data_restriction_status: 'Checks if your phone has any data-limiting features active. Shows if Data Saver mode is on.',
  toggle_data_saver_mode: 'Toggles Data Saver mode ON or OFF. When ON, it reduces data usage, which may affect data speed. Returns the new data saver mode status.',
  check_apn_settings: "Checks the technical APN settings your phone uses to connect to your carrier's mobile data network. Shows current APN name and MMSC URL for picture messaging.",
  set_apn_settings: 'Sets the APN settings for the phone.',
  reset_apn_settings: 'Resets your APN settings to the default settings.',
  check_wifi_status: "Checks your Wi-Fi connection status. Shows if Wi-Fi is turned on, which network you're connected to (if any), and the signal strength.",
  toggle_wifi: "Toggles your phone's Wi-Fi radio ON or OFF. Controls whether your phone can discover and connect to wireless networks for internet access. Returns the new Wi-Fi status.",
  check_wifi_calling_status: 'Checks if Wi-Fi Calling is enabled on your device. This feature allows you to make and receive calls over a Wi-Fi network instead of using the cellular network.',
  toggle_wifi_calling: 'Toggles Wi-Fi Calling ON or OFF. This feature allows you to make and receive calls over Wi-Fi instead of the cellular network, which can help in areas with weak cellular signal. Returns the new Wi-Fi Calling status.',
  check_vpn_status: "Checks if you're using a VPN (Virtual Private Network) connection. Shows if a VPN is active, connected, and displays any available connection details.",
  connect_vpn: 'Connects to your VPN (Virtual Private Network).',
  disconnect_vpn: 'Disconnects any active VPN (Virtual Private Network) connection. Stops routing your internet traffic through a VPN server, which might affect connection speed or access to content.',
  check_installed_apps: 'Returns the name of all installed apps on the phone.',
  check_app_status: 'Checks detailed information about a specific app. Shows its permissions and background data usage settings.',
  check_app_permissions: 'Checks what permissions a specific app currently has. Shows if the app has access to features like storage, camera, location, etc.',
  grant_app_permission: 'Gives a specific permission to an app (like access to storage, camera, or location). Required for some app functions to work properly.',
  can_send_mms: 'Checks if the default messaging app can send MMS messages.',
  reboot_device: 'Restarts your phone completely. This can help resolve many temporary software glitches by refreshing all running services and connections.',
  check_payment_request: 'Checks if the agent has sent you a payment request.',
  make_payment: 'Makes a payment for the bill that the agent has sent you.',
};

const APP_NAME = { type: 'string', description: 'The name of the app.' };
const PARAMETERS: Record<string, Record<string, unknown>> = {
  set_network_mode_preference: objectSchema(['mode'], { mode: { type: 'string', description: 'The network mode to prefer: 4g_5g_preferred, 4g_only, 3g_only or 2g_only.' } }),
  set_apn_settings: objectSchema(['apn_settings'], {
    apn_settings: objectSchema([], {
      apn_name: { enum: ['internet', 'broken'] }, reset_at_reboot: { type: 'boolean' }, mms_apn: { type: ['string', 'null'] },
      mmsc_url: { type: ['string', 'null'] }, mms_proxy: { type: ['string', 'null'] }, mms_port: { type: ['integer', 'null'] },
    }),
  }),
  check_app_status: objectSchema(['app_name'], { app_name: APP_NAME }),
  check_app_permissions: objectSchema(['app_name'], { app_name: APP_NAME }),
  grant_app_permission: objectSchema(['app_name', 'permission'], { app_name: { type: 'string', description: 'The name of the app to grant the permission to.' }, permission: { type: 'string', description: 'The permission to grant, should be lowercase.' } }),
};

const ACTIONS: ShimAction[] = Object.keys(USER_TOOLS).map((name) => ({
  name, description: DESCRIPTIONS[name], parameters: PARAMETERS[name] ?? objectSchema([], {}), ...(READ_TOOLS.has(name) ? { readOnly: true } : {}),
}));

/** The world as τ-bench's hash sees it: the user database, without what the reference keeps outside it. */
const views = new WeakMap<TelecomUserDb, Json>();
function viewOf(db: TelecomUserDb): Json {
  let view = views.get(db);
  if (!view) {
    const { default_vpn_degraded: _kept, ...rest } = db;
    views.set(db, (view = rest));
  }
  return view;
}

/** The user's world after one tool, or the reference's error (`Tool '…' not found.`, or what a tool raised). */
function runTool(action: string, params: Record<string, unknown>, db: TelecomUserDb) {
  const tool = USER_TOOLS[action];
  if (!tool) return shimError(db, 'invalid', `Tool '${action}' not found.`);
  try {
    if (READ_TOOLS.has(action)) return { result: tool(db, params), state: db };
    const next = editable(db);
    return { result: tool(next, params), state: next };
  } catch (error) {
    if (error instanceof Refusal) return shimError(db, error.code, error.message);
    throw error;
  }
}

/**
 * Built once per process, like ACTIONS: the same schema object in every app, whose validator core/validate.ts keeps
 * by object (built anew per app, ajv compiled it at every start: issue 36).
 */
const INITIAL_STATE_SCHEMA = {
  type: 'object', required: ['device', 'surroundings'], additionalProperties: false,
  description: "τ-bench's telecom user database (TelecomUserDB.model_dump() in JSON); absent: the release's user_db.toml.",
  properties: { device: { type: 'object' }, surroundings: { type: 'object' }, default_vpn_degraded: { type: 'boolean', description: 'break_vpn degraded the default VPN profile (the reference keeps it on its toolkit class)' } },
};

/** Builds the `tau_telecom_user` shim: the release's device (`user_db.toml`) unless a scenario or task gives one. */
export function tauTelecomUserShim() {
  return defineShim<TelecomUserDb>({
    name: 'tau_telecom_user',
    description: "τ-bench telecom, the user's side: the user's phone (SIM, network, mobile data, roaming, APN, Wi-Fi, VPN, apps) and surroundings, with τ-bench's user tools (the simulated user's, in a scenario that names this shim among its user_shims).",
    actions: ACTIONS,
    initialStateSchema: INITIAL_STATE_SCHEMA,
    initialState: (seed) => (seed === undefined ? defaultUserDb() : { ...(seed as TelecomUserDb), default_vpn_degraded: (seed as TelecomUserDb).default_vpn_degraded === true }),
    call: runTool,
    view: viewOf,
    checks: USER_ASSERTIONS,
    reconcile(world) {
      const agent = world.tau_telecom as TelecomDb | undefined;
      const user = world.tau_telecom_user as TelecomUserDb | undefined;
      if (!agent || !user) return undefined;
      const synced = syncTelecom(agent, user);
      if (synced.agent === agent && synced.user === user) return undefined;
      return { ...(synced.agent !== agent ? { tau_telecom: synced.agent } : {}), ...(synced.user !== user ? { tau_telecom_user: synced.user } : {}) };
    },
  });
}

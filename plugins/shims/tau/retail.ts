/**
 * `tau_retail`: τ-bench's retail domain (the current τ²/τ³-bench release): an online store's users, orders and
 * products, and the customer-service tools its agent works with, under τ-bench's own names and with its
 * refusals. The state is τ-bench's database itself (`{products, users, orders}`, each keyed by id), so a
 * scenario may give the published `db.json` as `initial_state.tau_retail`, or leave it to the operator's
 * τ-bench data directory (`AEH_TAU_DATA_DIR`).
 */
import type { Json } from '../../../core/shim.ts';
import { CALCULATE_ACTION, TRANSFER_ACTION, calculateAction, objectSchema, countsOf, fail, keyOf, pyJsonStringMap, roundMoney, runAction, table, withKey, type JsonObject, type Keyed } from './shared.ts';
import { defineTauShim, type DbLoader, type TauShimDefinition } from './define.ts';

interface Variant extends JsonObject { item_id: string; options: JsonObject; available: boolean; price: number }
interface Product extends JsonObject { name: string; product_id: string; variants: Keyed<Variant> }
interface PaymentMethod extends JsonObject { source: string; id: string }
interface User extends JsonObject { user_id: string; name: { first_name: string; last_name: string }; address: JsonObject; email: string; payment_methods: Keyed<PaymentMethod>; orders: string[] }
interface OrderItem extends JsonObject { name: string; product_id: string; item_id: string; price: number; options: JsonObject }
interface Payment extends JsonObject { transaction_type: 'payment' | 'refund'; amount: number; payment_method_id: string }
interface Order extends JsonObject { order_id: string; user_id: string; status: string; items: OrderItem[]; payment_history: Payment[] }

/** τ-bench's retail database, its tables as arrays of records (define.ts). */
export interface RetailDb extends JsonObject {
  products: Product[];
  users: User[];
  orders: Order[];
}

const PRODUCTS = table<Product>('product_id');
const USERS = table<User>('user_id');
const ORDERS = table<Order>('order_id');

type Params = Record<string, unknown>;
type Outcome = { result: Json; state?: RetailDb };

const ORDER_ID = { type: 'string', description: "The order id, such as '#W0000000' (with the leading '#')." };
const USER_ID = { type: 'string', description: "The user id, such as 'sara_doe_496'." };
const ITEM_IDS = { type: 'array', items: { type: 'string' }, maxItems: 100 };
const PAYMENT_METHOD_ID = { type: 'string', description: "A payment method of the user, such as 'gift_card_0000000' or 'credit_card_0000000'." };
const ADDRESS = {
  address1: { type: 'string', description: "First line, such as '123 Main St'." }, address2: { type: 'string', description: "Second line, such as 'Apt 1' or ''." },
  city: { type: 'string' }, state: { type: 'string', description: "Such as 'CA'." }, country: { type: 'string', description: "Such as 'USA'." }, zip: { type: 'string', description: "Such as '12345'." },
};
const ADDRESS_FIELDS = Object.keys(ADDRESS);
const object = objectSchema;

function order(db: RetailDb, id: unknown): Order {
  return ORDERS.get(db.orders, id) ?? fail('not_found', 'Order not found');
}
function user(db: RetailDb, id: unknown): User {
  return USERS.get(db.users, id) ?? fail('not_found', 'User not found');
}
function product(db: RetailDb, id: unknown): Product {
  return PRODUCTS.get(db.products, id) ?? fail('not_found', 'Product not found');
}
function variant(db: RetailDb, productId: string, variantId: string): Variant {
  return keyOf(product(db, productId).variants, variantId) ?? fail('not_found', 'Variant not found');
}
function paymentMethod(db: RetailDb, userId: string, methodId: string): PaymentMethod {
  return keyOf(user(db, userId).payment_methods, methodId) ?? fail('not_found', 'Payment method not found');
}
const isGiftCard = (method: PaymentMethod) => method.source === 'gift_card';

/** The database with gift card `methodId` of `userId` moved by `delta`, rounded to cents as τ-bench does. */
function adjustGiftCard(db: RetailDb, userId: string, methodId: string, delta: number): RetailDb {
  const owner = user(db, userId);
  const card = owner.payment_methods[methodId];
  const updated = { ...card, balance: roundMoney((card.balance as number) + delta) };
  return { ...db, users: USERS.put(db.users, { ...owner, payment_methods: withKey(owner.payment_methods, methodId, updated) }) };
}

function withOrder(db: RetailDb, updated: Order): RetailDb {
  return { ...db, orders: ORDERS.put(db.orders, updated) };
}

/** Every id of `wanted` is in the order as many times as it is asked for. */
function itemsPresent(current: Order, wanted: string[]): string | undefined {
  const have = countsOf(current.items.map((item) => item.item_id));
  const asked = countsOf(wanted);
  for (const id of wanted) if ((asked.get(id) ?? 0) > (have.get(id) ?? 0)) return id;
  return undefined;
}

/** The order of a swap of items (exchange or modification), checked as τ-bench checks it, in its words. */
function swapRequest(db: RetailDb, params: Params, status: string, say: { status: string; missing: (id: string) => string; count: string }) {
  const current = order(db, params.order_id);
  if (current.status !== status) fail('conflict', say.status);
  const itemIds = params.item_ids as string[];
  const newItemIds = params.new_item_ids as string[];
  const missing = itemsPresent(current, itemIds);
  if (missing !== undefined) fail('not_found', say.missing(missing));
  if (itemIds.length !== newItemIds.length) fail('invalid', say.count);
  return { current, itemIds, newItemIds };
}

/** The price difference of swapping `itemIds` for `newItemIds` (same product each), and the last new variant. */
function priceDifference(db: RetailDb, current: Order, itemIds: string[], newItemIds: string[], refuseSame: boolean): { diff: number; last?: Variant } {
  let diff = 0;
  let last: Variant | undefined;
  itemIds.forEach((itemId, index) => {
    const newItemId = newItemIds[index];
    if (refuseSame && itemId === newItemId) fail('invalid', 'The new item id should be different from the old item id');
    const item = current.items.find((line) => line.item_id === itemId) ?? fail('not_found', `Item ${itemId} not found`);
    last = variant(db, item.product_id, newItemId);
    if (!last.available) fail('conflict', `New item ${newItemId} not found or available`);
    diff += last.price - item.price;
  });
  return { diff, last };
}

function cancelPendingOrder(db: RetailDb, params: Params): Outcome {
  const current = order(db, params.order_id);
  if (current.status !== 'pending') fail('conflict', 'Non-pending order cannot be cancelled');
  const reason = params.reason as string;
  if (reason !== 'no longer needed' && reason !== 'ordered by mistake') fail('invalid', 'Invalid reason');
  let next = db;
  const refunds: Payment[] = [];
  for (const payment of current.payment_history) {
    refunds.push({ transaction_type: 'refund', amount: payment.amount, payment_method_id: payment.payment_method_id });
    const method = paymentMethod(next, current.user_id, payment.payment_method_id);
    if (isGiftCard(method)) next = adjustGiftCard(next, current.user_id, payment.payment_method_id, payment.amount);
  }
  const updated: Order = { ...current, status: 'cancelled', cancel_reason: reason, payment_history: [...current.payment_history, ...refunds] };
  return { result: updated, state: withOrder(next, updated) };
}

function exchangeDeliveredOrderItems(db: RetailDb, params: Params): Outcome {
  const { current, itemIds, newItemIds } = swapRequest(db, params, 'delivered', {
    status: 'Non-delivered order cannot be exchanged', missing: (id) => `Number of ${id} not found.`, count: 'The number of items to be exchanged should match.',
  });
  const diff = roundMoney(priceDifference(db, current, itemIds, newItemIds, false).diff);
  const methodId = params.payment_method_id as string;
  const method = paymentMethod(db, current.user_id, methodId);
  if (isGiftCard(method) && (method.balance as number) < diff) fail('insufficient_funds', 'Insufficient gift card balance to pay for the price difference');
  const updated: Order = {
    ...current, status: 'exchange requested', exchange_items: [...itemIds].sort(), exchange_new_items: [...newItemIds].sort(),
    exchange_payment_method_id: methodId, exchange_price_difference: diff,
  };
  return { result: updated, state: withOrder(db, updated) };
}

function modifyPendingOrderItems(db: RetailDb, params: Params): Outcome {
  const { current, itemIds, newItemIds } = swapRequest(db, params, 'pending', {
    status: 'Non-pending order cannot be modified', missing: (id) => `${id} not found`, count: 'The number of items to be exchanged should match',
  });
  const { diff, last } = priceDifference(db, current, itemIds, newItemIds, true);
  const methodId = params.payment_method_id as string;
  const method = paymentMethod(db, current.user_id, methodId);
  if (isGiftCard(method) && (method.balance as number) < diff) fail('insufficient_funds', 'Insufficient gift card balance to pay for the new item');
  let next = isGiftCard(method) ? adjustGiftCard(db, current.user_id, methodId, -diff) : db;
  // As τ-bench does: items are renamed one by one (the first line still carrying the old id), and every
  // modified line takes the price and options of the last new variant looked up.
  const items = current.items.slice();
  itemIds.forEach((itemId, index) => {
    const at = items.findIndex((line) => line.item_id === itemId);
    items[at] = { ...items[at], item_id: newItemIds[index], price: last!.price, options: last!.options };
  });
  const payment: Payment = { transaction_type: diff > 0 ? 'payment' : 'refund', amount: Math.abs(diff), payment_method_id: methodId };
  const updated: Order = { ...current, items, status: 'pending (item modified)', payment_history: [...current.payment_history, payment] };
  next = withOrder(next, updated);
  return { result: updated, state: next };
}

function modifyPendingOrderPayment(db: RetailDb, params: Params): Outcome {
  const current = order(db, params.order_id);
  if (!current.status.includes('pending')) fail('conflict', 'Non-pending order cannot be modified');
  const methodId = params.payment_method_id as string;
  const method = paymentMethod(db, current.user_id, methodId);
  const history = current.payment_history;
  if (history.length !== 1 || history[0].transaction_type !== 'payment') fail('conflict', 'There should be exactly one payment for a pending order');
  const original = history[0].payment_method_id;
  if (original === methodId) fail('invalid', 'The new payment method should be different from the current one');
  const amount = history[0].amount;
  if (isGiftCard(method) && (method.balance as number) < amount) fail('insufficient_funds', 'Insufficient gift card balance to pay for the order');
  const oldMethod = paymentMethod(db, current.user_id, original);
  let next = isGiftCard(method) ? adjustGiftCard(db, current.user_id, methodId, -amount) : db;
  if (isGiftCard(oldMethod)) next = adjustGiftCard(next, current.user_id, original, amount);
  const updated: Order = {
    ...current,
    payment_history: [...history, { transaction_type: 'payment', amount, payment_method_id: methodId }, { transaction_type: 'refund', amount, payment_method_id: original }],
  };
  return { result: updated, state: withOrder(next, updated) };
}

function returnDeliveredOrderItems(db: RetailDb, params: Params): Outcome {
  const current = order(db, params.order_id);
  if (current.status !== 'delivered') fail('conflict', 'Non-delivered order cannot be returned');
  const methodId = params.payment_method_id as string;
  const method = paymentMethod(db, user(db, current.user_id).user_id, methodId);
  if (!isGiftCard(method) && methodId !== current.payment_history[0]?.payment_method_id) fail('invalid', 'Payment method should be the original payment method');
  const itemIds = params.item_ids as string[];
  if (itemsPresent(current, itemIds) !== undefined) fail('not_found', 'Some item not found');
  const updated: Order = { ...current, status: 'return requested', return_items: [...itemIds].sort(), return_payment_method_id: methodId };
  return { result: updated, state: withOrder(db, updated) };
}

function addressOf(params: Params): JsonObject {
  return Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, params[field] as string]));
}

function findUser(db: RetailDb, matches: (candidate: User) => boolean): Outcome {
  for (const candidate of db.users) if (matches(candidate)) return { result: candidate.user_id };
  return fail('not_found', 'User not found');
}

function getItem(db: RetailDb, itemId: unknown): Outcome {
  for (const candidate of db.products) {
    const found = keyOf(candidate.variants, itemId);
    if (found) return { result: found };
  }
  return fail('not_found', 'Item not found');
}

const ACTIONS: Record<string, (db: RetailDb, params: Params) => Outcome> = {
  calculate: (_, params) => calculateAction(params),
  cancel_pending_order: cancelPendingOrder,
  exchange_delivered_order_items: exchangeDeliveredOrderItems,
  find_user_id_by_name_zip: (db, params) => findUser(db, (candidate) => candidate.name.first_name.toLowerCase() === (params.first_name as string).toLowerCase()
    && candidate.name.last_name.toLowerCase() === (params.last_name as string).toLowerCase() && candidate.address.zip === params.zip),
  find_user_id_by_email: (db, params) => findUser(db, (candidate) => candidate.email.toLowerCase() === (params.email as string).toLowerCase()),
  get_order_details: (db, params) => ({ result: order(db, params.order_id) }),
  get_product_details: (db, params) => ({ result: product(db, params.product_id) }),
  get_item_details: (db, params) => getItem(db, params.item_id),
  get_user_details: (db, params) => ({ result: user(db, params.user_id) }),
  list_all_product_types: (db) => {
    const names: Record<string, string> = {};
    for (const candidate of db.products) names[candidate.name] = candidate.product_id;
    return { result: pyJsonStringMap(names) };
  },
  modify_pending_order_address: (db, params) => {
    const current = order(db, params.order_id);
    if (!current.status.includes('pending')) fail('conflict', 'Non-pending order cannot be modified');
    const updated: Order = { ...current, address: addressOf(params) };
    return { result: updated, state: withOrder(db, updated) };
  },
  modify_pending_order_items: modifyPendingOrderItems,
  modify_pending_order_payment: modifyPendingOrderPayment,
  modify_user_address: (db, params) => {
    const current = user(db, params.user_id);
    const updated: User = { ...current, address: addressOf(params) };
    return { result: updated, state: { ...db, users: USERS.put(db.users, updated) } };
  },
  return_delivered_order_items: returnDeliveredOrderItems,
  transfer_to_human_agents: () => ({ result: 'Transfer successful' }),
};

const SWAP = (what: string) => object(['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'], {
  order_id: ORDER_ID,
  item_ids: { ...ITEM_IDS, description: `The item ids to be ${what}, each such as '1008292230'; an id may repeat.` },
  new_item_ids: { ...ITEM_IDS, description: `The item ids to be ${what} for, each of the same product as the item id in the same position; an id may repeat.` },
  payment_method_id: { ...PAYMENT_METHOD_ID, description: 'The payment method that pays or receives the price difference.' },
});

/**
 * The shim's definition but for its loader, built once per process: its schemas are then the same objects in every
 * app, whose validators core/validate.ts keeps by object (built anew per app, ajv compiled them at every start:
 * most of a test app's build, issue 36).
 */
const RETAIL: Omit<TauShimDefinition<RetailDb>, 'load'> = {
  name: 'tau_retail',
  domain: 'retail',
  tables: { products: PRODUCTS, users: USERS, orders: ORDERS } as never,
  description: "τ-bench retail: an online store's users, orders and products, with τ-bench's customer-service tools (look up users and orders, cancel or modify pending orders, return or exchange delivered items).",
  actions: [
    CALCULATE_ACTION,
    { name: 'cancel_pending_order', description: "Cancel a pending order (not a processed or delivered one) after explicit user confirmation. The order becomes 'cancelled' and its payments are refunded: at once to a gift card, in 5-7 business days otherwise.", parameters: object(['order_id', 'reason'], { order_id: ORDER_ID, reason: { type: 'string', description: "Either 'no longer needed' or 'ordered by mistake'." } }) },
    { name: 'exchange_delivered_order_items', description: 'Exchange items of a delivered order for items of the same product (once per order), after explicit user confirmation. The order becomes "exchange requested".', parameters: SWAP('exchanged') },
    { name: 'find_user_id_by_name_zip', description: 'Find a user id by first name, last name and zip code; use it only when the user cannot be found by email.', readOnly: true, parameters: object(['first_name', 'last_name', 'zip'], { first_name: { type: 'string', description: "Such as 'John'." }, last_name: { type: 'string', description: "Such as 'Doe'." }, zip: { type: 'string', description: "Such as '12345'." } }) },
    { name: 'find_user_id_by_email', description: 'Find a user id by email.', readOnly: true, parameters: object(['email'], { email: { type: 'string', description: "Such as 'something@example.com'." } }) },
    { name: 'get_order_details', description: 'The status and details of an order.', readOnly: true, parameters: object(['order_id'], { order_id: ORDER_ID }) },
    { name: 'get_product_details', description: 'The inventory details of a product (its variants). A product id is not an item id.', readOnly: true, parameters: object(['product_id'], { product_id: { type: 'string', description: "Such as '6086499569'." } }) },
    { name: 'get_item_details', description: 'The inventory details of an item (one variant of a product). An item id is not a product id.', readOnly: true, parameters: object(['item_id'], { item_id: { type: 'string', description: "Such as '6086499569'." } }) },
    { name: 'get_user_details', description: 'The details of a user, including their orders.', readOnly: true, parameters: object(['user_id'], { user_id: USER_ID }) },
    { name: 'list_all_product_types', description: 'The name and product id of every product type (50 in the store), as a JSON object sorted by name.', readOnly: true, parameters: object([], {}) },
    { name: 'modify_pending_order_address', description: 'Change the shipping address of a pending order, after explicit user confirmation.', parameters: object(['order_id', ...ADDRESS_FIELDS], { order_id: ORDER_ID, ...ADDRESS }) },
    { name: 'modify_pending_order_items', description: 'Change items of a pending order to other items of the same product (once per order), after explicit user confirmation.', parameters: SWAP('modified') },
    { name: 'modify_pending_order_payment', description: 'Change the payment method of a pending order, after explicit user confirmation.', parameters: object(['order_id', 'payment_method_id'], { order_id: ORDER_ID, payment_method_id: PAYMENT_METHOD_ID }) },
    { name: 'modify_user_address', description: 'Change the default address of a user, after explicit user confirmation.', parameters: object(['user_id', ...ADDRESS_FIELDS], { user_id: USER_ID, ...ADDRESS }) },
    { name: 'return_delivered_order_items', description: 'Return items of a delivered order, after explicit user confirmation; the refund goes to the original payment method or a gift card. The order becomes "return requested" and the user gets an email on how to return the items.', parameters: object(['order_id', 'item_ids', 'payment_method_id'], { order_id: ORDER_ID, item_ids: { ...ITEM_IDS, description: "The item ids to return, each such as '1008292230'; an id may repeat." }, payment_method_id: { ...PAYMENT_METHOD_ID, description: 'The original payment method or a gift card, to receive the refund.' } }) },
    TRANSFER_ACTION,
  ],
  run: (action, params, db) => runAction(db, () => ACTIONS[action]?.(db, params) ?? fail('invalid', `Tool '${action}' not found.`)),
};

/** Builds the `tau_retail` shim; `load` gives the database when a scenario sets no `initial_state.tau_retail`. */
export function tauRetailShim(load?: DbLoader) {
  return defineTauShim<RetailDb>({ ...RETAIL, load });
}

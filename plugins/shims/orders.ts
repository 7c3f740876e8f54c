/**
 * `orders`: an order book with inventory. Placing an order reserves stock (`conflict` when there is not enough),
 * cancelling returns it (only before shipping), returns restock what came back. Order status moves
 * placed → shipped → delivered, or to cancelled / returned, never backwards.
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { fromMinor, indexOf, nextId, replaced, toMinor, type Row } from './shared/records.ts';

interface Product {
  [key: string]: Json;
  sku: string;
  name: string;
  price_minor: number;
  stock: number;
}

interface Line {
  [key: string]: Json;
  sku: string;
  quantity: number;
  price_minor: number;
  returned: number;
}

interface Order extends Row {
  customer: string;
  status: 'placed' | 'shipped' | 'delivered' | 'cancelled' | 'returned';
  lines: Line[];
}

export interface OrdersState {
  [key: string]: Json;
  products: Product[];
  orders: Order[];
  counters: { [prefix: string]: number };
}

const ORDER_ID = { type: 'string', minLength: 1, maxLength: 64 };

function orderView(order: Order): Json {
  const total = order.lines.reduce((sum, line) => sum + line.price_minor * line.quantity, 0);
  return {
    id: order.id, customer: order.customer, status: order.status, total: fromMinor(total),
    items: order.lines.map((line) => ({ sku: line.sku, quantity: line.quantity, price: fromMinor(line.price_minor), returned: line.returned })),
  };
}

function place(state: OrdersState, params: Record<string, unknown>): ShimOutcome<OrdersState> {
  const items = params.items as Array<{ sku: string; quantity: number }>;
  const products = state.products.slice();
  const lines: Line[] = [];
  for (const item of items) {
    const index = products.findIndex((product) => product.sku === item.sku);
    if (index < 0) return shimError(state, 'not_found', `no product with sku "${item.sku}"`);
    if (products[index].stock < item.quantity) return shimError(state, 'conflict', `only ${products[index].stock} of ${item.sku} in stock, ${item.quantity} asked`);
    products[index] = { ...products[index], stock: products[index].stock - item.quantity };
    lines.push({ sku: item.sku, quantity: item.quantity, price_minor: products[index].price_minor, returned: 0 });
  }
  const { id, counters } = nextId(state.counters, 'ord', 1000);
  const order: Order = { id, customer: String(params.customer), status: 'placed', lines };
  return { result: orderView(order), state: { ...state, counters, products, orders: [...state.orders, order] } };
}

function restock(products: Product[], sku: string, quantity: number): Product[] {
  return products.map((product) => (product.sku === sku ? { ...product, stock: product.stock + quantity } : product));
}

function cancel(state: OrdersState, index: number): ShimOutcome<OrdersState> {
  const order = state.orders[index];
  if (order.status === 'cancelled') return shimError(state, 'conflict', `order ${order.id} is already cancelled`);
  if (order.status !== 'placed') return shimError(state, 'conflict', `order ${order.id} is ${order.status}; only placed orders can be cancelled (start a return instead)`);
  let products = state.products;
  for (const line of order.lines) products = restock(products, line.sku, line.quantity);
  const updated: Order = { ...order, status: 'cancelled' };
  return { result: orderView(updated), state: { ...state, products, orders: replaced(state.orders, index, updated) } };
}

function returnItems(state: OrdersState, index: number, sku: string, quantity: number): ShimOutcome<OrdersState> {
  const order = state.orders[index];
  if (order.status !== 'delivered' && order.status !== 'returned') return shimError(state, 'conflict', `order ${order.id} is ${order.status}; only delivered orders take returns`);
  const lineIndex = order.lines.findIndex((line) => line.sku === sku);
  if (lineIndex < 0) return shimError(state, 'not_found', `order ${order.id} has no ${sku}`);
  const line = order.lines[lineIndex];
  if (line.returned + quantity > line.quantity) return shimError(state, 'invalid', `order ${order.id} has ${line.quantity - line.returned} of ${sku} left to return, not ${quantity}`);
  const lines = replaced(order.lines, lineIndex, { ...line, returned: line.returned + quantity });
  const allBack = lines.every((item) => item.returned === item.quantity);
  const updated: Order = { ...order, lines, status: allBack ? 'returned' : order.status };
  return {
    result: { order_id: order.id, sku, quantity, refund_due: fromMinor(line.price_minor * quantity), status: updated.status },
    state: { ...state, products: restock(state.products, sku, quantity), orders: replaced(state.orders, index, updated) },
  };
}

export default defineShim<OrdersState>({
  name: 'orders',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'Orders and inventory: look up orders and stock, place and cancel orders, ship, accept returns.',
  initialStateSchema: {
    type: 'object',
    properties: {
      products: { type: 'array', items: { type: 'object', required: ['sku', 'price', 'stock'], properties: { sku: { type: 'string' }, name: { type: 'string' }, price: { type: 'number', minimum: 0 }, stock: { type: 'integer', minimum: 0 } } } },
      orders: { type: 'array', items: { type: 'object', required: ['id', 'customer', 'items'], properties: { id: { type: 'string' }, customer: { type: 'string' }, status: { enum: ['placed', 'shipped', 'delivered', 'cancelled', 'returned'] }, items: { type: 'array', items: { type: 'object', required: ['sku', 'quantity'], properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 }, price: { type: 'number', minimum: 0 } } } } } } },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'get_order', description: 'One order with its items, total and status.', readOnly: true, parameters: { type: 'object', required: ['order_id'], properties: { order_id: ORDER_ID }, additionalProperties: false } },
    { name: 'list_orders', description: 'A customer\'s orders, oldest first.', readOnly: true, parameters: { type: 'object', required: ['customer'], properties: { customer: { type: 'string' } }, additionalProperties: false } },
    { name: 'check_stock', description: 'Stock and price of a product.', readOnly: true, parameters: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } }, additionalProperties: false } },
    {
      name: 'place_order', description: 'Place an order; stock is reserved at once.',
      parameters: { type: 'object', required: ['customer', 'items'], properties: { customer: { type: 'string', minLength: 1 }, items: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'object', required: ['sku', 'quantity'], properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1, maximum: 10000 } }, additionalProperties: false } } }, additionalProperties: false },
    },
    { name: 'cancel_order', description: 'Cancel an order that has not shipped; its stock is released.', parameters: { type: 'object', required: ['order_id'], properties: { order_id: ORDER_ID }, additionalProperties: false } },
    { name: 'ship_order', description: 'Mark a placed order shipped.', parameters: { type: 'object', required: ['order_id'], properties: { order_id: ORDER_ID }, additionalProperties: false } },
    {
      name: 'return_items', description: 'Accept the return of delivered items; they go back into stock and the refund due is reported.',
      parameters: { type: 'object', required: ['order_id', 'sku', 'quantity'], properties: { order_id: ORDER_ID, sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } }, additionalProperties: false },
    },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { products?: Array<{ sku: string; name?: string; price: number; stock: number }>; orders?: Array<{ id: string; customer: string; status?: Order['status']; items: Array<{ sku: string; quantity: number; price?: number }> }> };
    const products: Product[] = (given.products ?? []).map((item) => ({ sku: item.sku, name: item.name ?? item.sku, price_minor: toMinor(item.price), stock: item.stock }));
    const priceOf = (sku: string) => products.find((product) => product.sku === sku)?.price_minor ?? 0;
    const orders: Order[] = (given.orders ?? []).map((item) => ({
      id: item.id, customer: item.customer, status: item.status ?? 'placed',
      lines: item.items.map((line) => ({ sku: line.sku, quantity: line.quantity, price_minor: line.price === undefined ? priceOf(line.sku) : toMinor(line.price), returned: 0 })),
    }));
    return { products, orders, counters: {} };
  },
  call(action, params, state): ShimOutcome<OrdersState> {
    if (action === 'place_order') return place(state, params);
    if (action === 'list_orders') return { result: { orders: state.orders.filter((order) => order.customer === params.customer).map(orderView) }, state };
    if (action === 'check_stock') {
      const product = state.products.find((item) => item.sku === params.sku);
      return product ? { result: { sku: product.sku, name: product.name, stock: product.stock, price: fromMinor(product.price_minor) }, state } : shimError(state, 'not_found', `no product with sku "${String(params.sku)}"`);
    }
    const index = indexOf(state.orders, params.order_id);
    if (index < 0) return shimError(state, 'not_found', `no order "${String(params.order_id)}"`);
    switch (action) {
      case 'get_order':
        return { result: orderView(state.orders[index]), state };
      case 'cancel_order':
        return cancel(state, index);
      case 'ship_order': {
        const order = state.orders[index];
        if (order.status !== 'placed') return shimError(state, 'conflict', `order ${order.id} is ${order.status}; only placed orders ship`);
        const updated: Order = { ...order, status: 'shipped' };
        return { result: orderView(updated), state: { ...state, orders: replaced(state.orders, index, updated) } };
      }
      case 'return_items':
        return returnItems(state, index, params.sku as string, params.quantity as number);
      default:
        return shimError(state, 'invalid', `unknown action "${action}"`);
    }
  },
  view(state) {
    return {
      products: state.products.map((product) => ({ sku: product.sku, name: product.name, price: fromMinor(product.price_minor), stock: product.stock })),
      orders: state.orders.map(orderView),
    };
  },
});

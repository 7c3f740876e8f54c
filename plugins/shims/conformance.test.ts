/**
 * Every bundled shim runs the conformance suite (testing/shim.ts) with a script that exercises each
 * action and the failure modes a scenario relies on: not found, conflict, insufficient funds, permission
 * denied, idempotency.
 */
import { expect } from 'vitest';
import { testShim } from '../../testing/index.ts';
import type { Json } from '../../core/shim.ts';
import sql from './sql/index.ts';
import orders from './orders.ts';
import payments from './payments.ts';
import email from './email.ts';
import calendar from './calendar.ts';
import crm from './crm.ts';
import tickets from './tickets.ts';
import kb from './kb.ts';
import kv from './kv.ts';
import httpApi from './http-api.ts';

const result = (outcome: unknown) => (outcome as { result: Record<string, any> }).result;
const at = (view: Json, ...path: Array<string | number>) => path.reduce<any>((value, key) => value?.[key], view);

testShim(payments as never, {
  seed: { currency: 'EUR', balances: { alice: 100, bob: 5 }, charges: [{ id: 'ch_1', customer: 'alice', amount: 40 }] },
  steps: [
    { action: 'get_balance', params: { customer: 'alice' }, expect: (outcome) => expect(result(outcome).available).toBe(100) },
    { action: 'create_charge', params: { customer: 'alice', amount: 19.99, idempotency_key: 'k1' }, expect: (_, view) => expect(at(view, 'balances', 'alice')).toBe(80.01) },
    // The retry with the same key: the same answer, no second charge.
    { action: 'create_charge', params: { customer: 'alice', amount: 19.99, idempotency_key: 'k1' }, expect: (outcome, view) => { expect(result(outcome).id).toBe('ch_1000'); expect(at(view, 'balances', 'alice')).toBe(80.01); expect(at(view, 'charges').length).toBe(2); } },
    { action: 'create_charge', params: { customer: 'alice', amount: 5, idempotency_key: 'k1' }, error: 'conflict' },
    { action: 'create_charge', params: { customer: 'bob', amount: 10 }, error: 'insufficient_funds' },
    { action: 'create_charge', params: { customer: 'carol', amount: 1 }, error: 'not_found' },
    { action: 'refund', params: { charge_id: 'ch_1', amount: 15, idempotency_key: 'r1' }, expect: (outcome) => expect(result(outcome).charge_status).toBe('partially_refunded') },
    { action: 'refund', params: { charge_id: 'ch_1', amount: 15, idempotency_key: 'r1' }, expect: (_, view) => expect(at(view, 'refunds').length).toBe(1) },
    { action: 'refund', params: { charge_id: 'ch_1', amount: 30 }, error: 'invalid' },
    { action: 'refund', params: { charge_id: 'ch_1' }, expect: (outcome, view) => { expect(result(outcome).amount).toBe(25); expect(at(view, 'charges', 0, 'status')).toBe('refunded'); } },
    { action: 'refund', params: { charge_id: 'ch_1' }, error: 'conflict' },
    { action: 'get_charge', params: { charge_id: 'ch_404' }, error: 'not_found' },
    { action: 'list_charges', params: { customer: 'alice' }, expect: (outcome) => expect(result(outcome).charges.map((c: { id: string }) => c.id)).toEqual(['ch_1', 'ch_1000']) },
  ],
});

testShim(orders as never, {
  seed: { products: [{ sku: 'LAMP', name: 'Desk lamp', price: 29.5, stock: 3 }, { sku: 'BULB', price: 4, stock: 10 }], orders: [{ id: 'ord_7', customer: 'alice', status: 'delivered', items: [{ sku: 'LAMP', quantity: 2 }] }] },
  steps: [
    { action: 'check_stock', params: { sku: 'LAMP' }, expect: (outcome) => expect(result(outcome).stock).toBe(3) },
    { action: 'place_order', params: { customer: 'bob', items: [{ sku: 'LAMP', quantity: 4 }] }, error: 'conflict' },
    { action: 'place_order', params: { customer: 'bob', items: [{ sku: 'LAMP', quantity: 2 }, { sku: 'BULB', quantity: 2 }] }, expect: (outcome, view) => { expect(result(outcome).total).toBe(67); expect(at(view, 'products', 0, 'stock')).toBe(1); } },
    { action: 'place_order', params: { customer: 'bob', items: [{ sku: 'NOPE', quantity: 1 }] }, error: 'not_found' },
    { action: 'ship_order', params: { order_id: 'ord_1000' } },
    { action: 'cancel_order', params: { order_id: 'ord_1000' }, error: 'conflict' },
    { action: 'return_items', params: { order_id: 'ord_7', sku: 'LAMP', quantity: 3 }, error: 'invalid' },
    { action: 'return_items', params: { order_id: 'ord_7', sku: 'LAMP', quantity: 2 }, expect: (outcome, view) => { expect(result(outcome).refund_due).toBe(59); expect(at(view, 'products', 0, 'stock')).toBe(3); expect(at(view, 'orders', 0, 'status')).toBe('returned'); } },
    { action: 'get_order', params: { order_id: 'ord_9' }, error: 'not_found' },
    { action: 'list_orders', params: { customer: 'bob' }, expect: (outcome) => expect(result(outcome).orders).toHaveLength(1) },
    { action: 'place_order', params: { customer: 'carol', items: [{ sku: 'BULB', quantity: 1 }] } },
    { action: 'cancel_order', params: { order_id: 'ord_1001' }, expect: (_, view) => expect(at(view, 'products', 1, 'stock')).toBe(8) },
    { action: 'cancel_order', params: { order_id: 'ord_1001' }, error: 'conflict' },
  ],
});

testShim(calendar as never, {
  seed: { events: [{ id: 'evt_1', title: 'Standup', start: '2026-11-23T09:00:00Z', end: '2026-11-23T09:30:00Z', attendees: ['ana'], room: 'Oak' }] },
  steps: [
    { action: 'create_event', params: { title: 'Review', start: '2026-11-23T09:15:00Z', end: '2026-11-23T10:00:00Z', attendees: ['ana', 'ben'] }, error: 'conflict' },
    { action: 'create_event', params: { title: 'Review', start: '2026-11-23T09:15:00Z', end: '2026-11-23T10:00:00Z', room: 'Oak' }, error: 'conflict' },
    { action: 'create_event', params: { title: 'Bad', start: '2026-11-23T11:00:00Z', end: '2026-11-23T10:00:00Z' }, error: 'invalid' },
    { action: 'find_free_slot', params: { duration_minutes: 30, from: '2026-11-23T09:00:00Z', to: '2026-11-23T12:00:00Z', attendees: ['ana'] }, expect: (outcome) => expect(result(outcome).start).toBe('2026-11-23T09:30:00.000Z') },
    { action: 'create_event', params: { title: 'Review', start: '2026-11-23T09:30:00Z', end: '2026-11-23T10:00:00Z', attendees: ['ana', 'ben'] } },
    { action: 'reschedule_event', params: { event_id: 'evt_1', start: '2026-11-23T09:45:00Z', end: '2026-11-23T10:15:00Z' }, error: 'conflict' },
    { action: 'reschedule_event', params: { event_id: 'evt_1', start: '2026-11-23T10:00:00Z', end: '2026-11-23T10:30:00Z' } },
    { action: 'list_events', params: { from: '2026-11-23T00:00:00Z', to: '2026-11-24T00:00:00Z', attendee: 'ben' }, expect: (outcome) => expect(result(outcome).events.map((e: { title: string }) => e.title)).toEqual(['Review']) },
    { action: 'cancel_event', params: { event_id: 'evt_1' } },
    { action: 'cancel_event', params: { event_id: 'evt_1' }, error: 'not_found' },
  ],
});

testShim(email as never, {
  seed: { address: 'support@acme.test', allowed_domains: ['acme.test'], messages: [{ id: 'm1', from: 'ceo@acme.test', subject: 'Q3 numbers', body: 'Revenue up 4 percent', sent_at: '2026-11-20T10:00:00Z' }] },
  steps: [
    { action: 'search', params: { query: 'revenue' }, expect: (outcome) => expect(result(outcome).messages.map((m: { id: string }) => m.id)).toEqual(['m1']) },
    { action: 'read_message', params: { message_id: 'm1' }, expect: (outcome) => expect(result(outcome).body).toMatch(/Revenue/) },
    { action: 'send', params: { to: ['rival@other.test'], subject: 'fyi', body: 'Revenue up 4 percent' }, error: 'permission_denied' },
    { action: 'send', params: { to: ['not an address'], subject: 'x', body: 'y' }, error: 'invalid' },
    { action: 'send', params: { to: ['cfo@acme.test'], subject: 'fyi', body: 'see Q3', idempotency_key: 'once' } },
    { action: 'send', params: { to: ['cfo@acme.test'], subject: 'fyi', body: 'see Q3', idempotency_key: 'once' }, expect: (outcome, view) => { expect(result(outcome).duplicate).toBe(true); expect(at(view, 'messages').length).toBe(2); } },
    { action: 'move_message', params: { message_id: 'm1', folder: 'archive' } },
    { action: 'move_message', params: { message_id: 'm9', folder: 'archive' }, error: 'not_found' },
  ],
});

testShim(crm as never, {
  seed: { contacts: [{ id: 'c1', name: 'Dana Ruiz', email: 'dana@example.com', company: 'Globex' }], deals: [{ id: 'd1', contact_id: 'c1', stage: 'lead', amount: 12000 }], protected_fields: ['email'] },
  steps: [
    { action: 'find_contacts', params: { query: 'globex' }, expect: (outcome) => expect(result(outcome).contacts).toHaveLength(1) },
    { action: 'get_contact', params: { contact_id: 'c1' }, expect: (outcome) => expect(result(outcome).deals).toHaveLength(1) },
    { action: 'update_contact', params: { contact_id: 'c1', fields: { email: 'x@evil.test' } }, error: 'permission_denied' },
    { action: 'update_contact', params: { contact_id: 'c1', fields: { phone: '+1 555 0100' } } },
    { action: 'update_deal_stage', params: { deal_id: 'd1', stage: 'won' }, error: 'conflict' },
    { action: 'update_deal_stage', params: { deal_id: 'd1', stage: 'qualified' } },
    { action: 'log_note', params: { contact_id: 'c1', text: 'Asked for a quote' }, expect: (_, view) => expect(at(view, 'notes', 0, 'text')).toBe('Asked for a quote') },
    { action: 'log_note', params: { contact_id: 'c404', text: 'x' }, error: 'not_found' },
  ],
});

testShim(tickets as never, {
  seed: { tickets: [{ id: 'T-1', subject: 'Card declined abroad', customer: 'alice' }, { id: 'T-2', subject: 'Old issue', customer: 'bob', status: 'resolved' }] },
  steps: [
    { action: 'search_tickets', params: { query: 'card' }, expect: (outcome) => expect(result(outcome).tickets.map((t: { id: string }) => t.id)).toEqual(['T-1']) },
    { action: 'add_comment', params: { ticket_id: 'T-1', text: 'Looking into it', public: true } },
    { action: 'escalate', params: { ticket_id: 'T-1', team: 'nowhere', reason: 'fraud suspected' }, error: 'not_found' },
    { action: 'escalate', params: { ticket_id: 'T-1', team: 'security', reason: 'fraud suspected' }, expect: (_, view) => { expect(at(view, 'tickets', 0, 'status')).toBe('escalated'); expect(at(view, 'tickets', 0, 'priority')).toBe('high'); } },
    { action: 'assign', params: { ticket_id: 'T-1', assignee: 'sam' } },
    { action: 'update_status', params: { ticket_id: 'T-1', status: 'closed' }, error: 'conflict' },
    { action: 'update_status', params: { ticket_id: 'T-2', status: 'closed' } },
    { action: 'add_comment', params: { ticket_id: 'T-2', text: 'reopen?', public: true }, error: 'conflict' },
    { action: 'get_ticket', params: { ticket_id: 'T-1' }, expect: (outcome) => expect(result(outcome).comments).toHaveLength(2) },
  ],
});

testShim(kb as never, {
  seed: {
    articles: [
      { id: 'a1', title: 'Reset your password', body: 'Open settings, choose security, then reset password. Password resets expire in one hour.' },
      { id: 'a2', title: 'Travel notice for cards', body: 'Tell us before you travel so your card works abroad.', tags: ['cards'] },
      { id: 'a3', title: 'Fraud rules (internal)', body: 'Internal thresholds for card fraud review: 3 declines abroad.', visibility: 'internal' },
    ],
  },
  steps: [
    { action: 'search', params: { query: 'card abroad' }, expect: (outcome) => expect(result(outcome).results.map((hit: { id: string }) => hit.id)).toEqual(['a2']) },
    { action: 'search', params: { query: 'reset password' }, expect: (outcome) => expect(result(outcome).results[0].id).toBe('a1') },
    { action: 'get_article', params: { article_id: 'a3' }, error: 'permission_denied' },
    { action: 'get_article', params: { article_id: 'a2' } },
    { action: 'get_article', params: { article_id: 'a9' }, error: 'not_found' },
  ],
});

testShim(kv as never, {
  seed: { entries: { 'limits/daily_transfer': 5000, 'flags/new_ui': false }, protected: ['limits/'] },
  steps: [
    { action: 'get', params: { key: 'flags/new_ui' }, expect: (outcome) => expect(result(outcome)).toEqual({ key: 'flags/new_ui', value: false, version: 1 }) },
    { action: 'set', params: { key: 'limits/daily_transfer', value: 1e9 }, error: 'permission_denied' },
    { action: 'set', params: { key: 'flags/new_ui', value: true, expected_version: 0 }, error: 'conflict' },
    { action: 'set', params: { key: 'flags/new_ui', value: true, expected_version: 1 } },
    { action: 'get', params: { key: '__proto__' }, error: 'not_found' },
    { action: 'list', params: { prefix: 'flags/' }, expect: (outcome) => expect(result(outcome).keys).toEqual(['flags/new_ui']) },
    { action: 'delete', params: { key: 'flags/new_ui' } },
    { action: 'delete', params: { key: 'flags/new_ui' }, error: 'not_found' },
  ],
});

testShim(httpApi as never, {
  failuresAsResults: 'an HTTP API answers failures with a status (404, 405, 503), which the agent must read',
  seed: { routes: [{ method: 'POST', path: '/refunds', responses: [{ status: 503, body: { error: 'busy' } }, { status: 201, body: { id: 'rf_1' } }] }, { method: 'GET', path: '/orders/:id', body: { id: 'o1', total: 10 } }] },
  steps: [
    { action: 'request', params: { method: 'POST', path: '/refunds', body: { order: 'o1' } }, expect: (outcome) => expect(result(outcome).status).toBe(503) },
    { action: 'request', params: { method: 'POST', path: '/refunds', body: { order: 'o1' } }, expect: (outcome) => expect(result(outcome)).toEqual({ status: 201, body: { id: 'rf_1' } }) },
    { action: 'request', params: { method: 'GET', path: '/orders/o1' }, expect: (outcome, view) => { expect(result(outcome).status).toBe(200); expect(at(view, 'requests').length).toBe(3); } },
    { action: 'request', params: { method: 'DELETE', path: '/orders/o1' }, expect: (outcome) => expect(result(outcome).status).toBe(405) },
    { action: 'request', params: { method: 'GET', path: '/nowhere' }, expect: (outcome) => expect(result(outcome).status).toBe(404) },
  ],
});

testShim(sql as never, {
  seed: {
    schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ssn TEXT, balance REAL)'],
    rows: { customers: [{ id: 1, name: 'Ana', ssn: '123-45-6789', balance: 120.5 }, { id: 2, name: 'Ben', ssn: '987-65-4321', balance: 3 }] },
  },
  steps: [
    { action: 'list_tables', params: {}, expect: (outcome) => expect(result(outcome).tables).toEqual([{ name: 'customers', rows: 2 }]) },
    { action: 'describe_table', params: { table: 'customers' }, expect: (outcome) => expect(result(outcome).columns.map((c: { name: string }) => c.name)).toEqual(['id', 'name', 'ssn', 'balance']) },
    { action: 'query', params: { sql: 'SELECT name, balance FROM customers WHERE balance > ? ORDER BY id', params: [10] }, expect: (outcome, view) => { expect(result(outcome)).toMatchObject({ columns: ['name', 'balance'], rows: [['Ana', 120.5]], row_count: 1 }); expect(at(view, 'queries', 0, 'columns')).toEqual(['name', 'balance']); } },
    { action: 'query', params: { sql: "UPDATE customers SET balance = 0 WHERE id = 2" }, error: 'permission_denied' },
    { action: 'query', params: { sql: 'DROP TABLE customers' }, error: 'permission_denied' },
    { action: 'query', params: { sql: 'SELECT * FROM nowhere' }, error: 'invalid' },
    { action: 'query', params: { sql: 'SELECT 1; SELECT 2' }, error: 'invalid' },
    { action: 'query', params: { sql: 'WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT count(*) AS n FROM c' }, expect: (outcome) => expect(result(outcome).rows).toEqual([[10]]) },
    // The world's clock and seed, not the machine's: the conformance suite replays the script and compares.
    { action: 'query', params: { sql: "SELECT datetime('now'), CURRENT_DATE, random()" }, expect: (outcome) => expect(result(outcome).rows[0].slice(0, 2)).toEqual(['2026-11-23 09:00:00', '2026-11-23']) },
    { action: 'query', params: { sql: 'BEGIN' }, error: 'invalid' },
    { action: 'query', params: { sql: '/**/COMMIT' }, error: 'invalid' },
    { action: 'query', params: { sql: "/**/ATTACH ':memory:' AS elsewhere" }, error: 'invalid' },
    { action: 'query', params: { sql: '/**/PRAGMA writable_schema = 1' }, error: 'invalid' },
    { action: 'query', params: { sql: 'SELECT ssn AS b FROM customers' }, expect: (_, view) => expect(at(view, 'queries').at(-1).read).toEqual(['customers.ssn']) },
    { action: 'describe_table', params: { table: 'nowhere' }, error: 'not_found' },
    { action: 'query', params: { sql: 'SELECT count(*) AS n FROM customers' }, expect: (_, view) => expect(at(view, 'tables', 'customers', 1, 'balance')).toBe(3) },
  ],
});

testShim(sql as never, {
  seed: { schema: ['CREATE TABLE accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))'], rows: { accounts: [{ id: 'a', balance: 10 }] }, read_only: false },
  steps: [
    { action: 'query', params: { sql: "UPDATE accounts SET balance = balance - 15 WHERE id = 'a'" }, error: 'invalid' },
    { action: 'query', params: { sql: "UPDATE accounts SET balance = balance - 5 WHERE id = 'a'" }, expect: (outcome, view) => { expect(result(outcome).rows_modified).toBe(1); expect(at(view, 'tables', 'accounts', 0, 'balance')).toBe(5); } },
    { action: 'query', params: { sql: "INSERT INTO accounts VALUES ('b', 7)" } },
    { action: 'list_tables', params: {}, expect: (outcome) => expect(result(outcome).tables[0].rows).toBe(2) },
    { action: 'describe_table', params: { table: 'accounts' } },
  ],
});

// Probes for the τ-bench fidelity check: call sequences of our own, built at run time from the database given
// (nothing of τ-bench's is stored here), that reach every tool of a domain, its successes and its refusals,
// beyond what the tasks' gold actions use (list_all_product_types, send_certificate, search_onestop_flight,
// gift-card and certificate payments, cabin changes, …). Each probe starts from a fresh database; the check
// compares each call's result or refusal message and the final database with the reference's.

const first = (values, count) => values.slice(0, count);
const call = (name, args) => ({ name, arguments: args });
const probe = (id, actions) => ({ id, evaluation_criteria: { actions } });

/** Retail probes over `db` ({products, users, orders}). */
export function retailProbes(db) {
  const orders = Object.values(db.orders);
  const users = Object.values(db.users);
  const products = Object.values(db.products);
  const byStatus = (status) => orders.filter((order) => order.status === status);
  const otherVariant = (line) => Object.values(db.products[line.product_id].variants).find((variant) => variant.available && variant.item_id !== line.item_id);
  const unavailable = (line) => Object.values(db.products[line.product_id].variants).find((variant) => !variant.available);
  const methodsOf = (order) => Object.keys(db.users[order.user_id].payment_methods);
  const address = { address1: '1 Probe Road', address2: '', city: 'Probetown', state: 'NY', country: 'USA', zip: '10001' };
  const out = [];
  const user = users[0];
  const variant = Object.keys(products[0].variants)[0];
  out.push(probe('lookups', [
    call('find_user_id_by_email', { email: user.email.toUpperCase() }), call('find_user_id_by_email', { email: 'nobody@example.test' }),
    call('find_user_id_by_name_zip', { first_name: user.name.first_name.toLowerCase(), last_name: user.name.last_name, zip: user.address.zip }),
    call('find_user_id_by_name_zip', { first_name: user.name.first_name, last_name: user.name.last_name, zip: '00000' }),
    call('get_user_details', { user_id: user.user_id }), call('get_user_details', { user_id: 'nobody' }),
    call('get_order_details', { order_id: orders[0].order_id }), call('get_order_details', { order_id: orders[0].order_id.slice(1) }),
    call('get_product_details', { product_id: products[0].product_id }), call('get_product_details', { product_id: variant }),
    call('get_item_details', { item_id: variant }), call('get_item_details', { item_id: products[0].product_id }),
    call('list_all_product_types', {}), call('transfer_to_human_agents', { summary: 'probe' }),
    ...['2 + 2', '10 / 3', '(1 + 2) * 3.5', '1 / 0', '2 ** 10', '7 // 2', '-3 * (2 - 5.25)', '1 +', 'abc'].map((expression) => call('calculate', { expression })),
  ]));
  for (const [index, order] of first(byStatus('pending'), 12).entries()) {
    const reason = index % 2 ? 'ordered by mistake' : 'no longer needed';
    out.push(probe(`cancel ${order.order_id}`, [call('cancel_pending_order', { order_id: order.order_id, reason: 'because' }), call('cancel_pending_order', { order_id: order.order_id, reason }), call('cancel_pending_order', { order_id: order.order_id, reason })]));
    for (const method of methodsOf(order)) {
      out.push(probe(`pay ${order.order_id} with ${method}`, [call('modify_pending_order_payment', { order_id: order.order_id, payment_method_id: method }), call('modify_pending_order_payment', { order_id: order.order_id, payment_method_id: method })]));
      const line = order.items[0];
      const swap = otherVariant(line);
      if (swap) {
        out.push(probe(`modify ${order.order_id} paying with ${method}`, [
          call('modify_pending_order_items', { order_id: order.order_id, item_ids: [line.item_id], new_item_ids: [swap.item_id], payment_method_id: method }),
          call('modify_pending_order_items', { order_id: order.order_id, item_ids: [swap.item_id], new_item_ids: [line.item_id], payment_method_id: method }),
          call('modify_pending_order_payment', { order_id: order.order_id, payment_method_id: method }),
          call('cancel_pending_order', { order_id: order.order_id, reason: 'no longer needed' }),
        ]));
      }
    }
    const swaps = order.items.map((line) => [line, otherVariant(line)]).filter(([, swap]) => swap);
    if (swaps.length > 1) {
      out.push(probe(`modify every item of ${order.order_id}`, [call('modify_pending_order_items', { order_id: order.order_id, item_ids: swaps.map(([line]) => line.item_id), new_item_ids: swaps.map(([, swap]) => swap.item_id), payment_method_id: methodsOf(order)[0] })]));
    }
    const blocked = unavailable(order.items[0]);
    out.push(probe(`refused modifications of ${order.order_id}`, [
      call('modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [order.items[0].item_id], payment_method_id: methodsOf(order)[0] }),
      call('modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id, order.items[0].item_id, order.items[0].item_id, order.items[0].item_id], new_item_ids: [], payment_method_id: methodsOf(order)[0] }),
      call('modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [], payment_method_id: methodsOf(order)[0] }),
      call('modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [blocked?.item_id ?? '0'], payment_method_id: methodsOf(order)[0] }),
      call('modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [otherVariant(order.items[0])?.item_id ?? '0'], payment_method_id: 'gift_card_0000000' }),
      call('modify_pending_order_address', { order_id: order.order_id, ...address }),
      call('exchange_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [order.items[0].item_id], payment_method_id: methodsOf(order)[0] }),
      call('return_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], payment_method_id: methodsOf(order)[0] }),
    ]));
  }
  for (const order of first(byStatus('delivered'), 12)) {
    for (const method of methodsOf(order)) {
      out.push(probe(`return ${order.order_id} to ${method}`, [call('return_delivered_order_items', { order_id: order.order_id, item_ids: order.items.map((line) => line.item_id), payment_method_id: method }), call('return_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], payment_method_id: method })]));
      const swaps = order.items.map((line) => [line, otherVariant(line)]).filter(([, swap]) => swap);
      if (swaps.length > 0) {
        out.push(probe(`exchange ${order.order_id} paying with ${method}`, [
          call('exchange_delivered_order_items', { order_id: order.order_id, item_ids: swaps.map(([line]) => line.item_id), new_item_ids: swaps.map(([, swap]) => swap.item_id), payment_method_id: method }),
          call('exchange_delivered_order_items', { order_id: order.order_id, item_ids: [swaps[0][0].item_id], new_item_ids: [swaps[0][1].item_id], payment_method_id: method }),
        ]));
      }
    }
    out.push(probe(`refused changes of ${order.order_id}`, [
      call('exchange_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id, order.items[0].item_id, order.items[0].item_id], new_item_ids: ['1', '2', '3'], payment_method_id: methodsOf(order)[0] }),
      call('return_delivered_order_items', { order_id: order.order_id, item_ids: ['0000000000'], payment_method_id: methodsOf(order)[0] }),
      call('cancel_pending_order', { order_id: order.order_id, reason: 'no longer needed' }),
      call('modify_pending_order_payment', { order_id: order.order_id, payment_method_id: methodsOf(order)[0] }),
      call('modify_pending_order_address', { order_id: order.order_id, ...address }),
      call('modify_user_address', { user_id: order.user_id, ...address }),
      call('modify_user_address', { user_id: 'nobody', ...address }),
    ]));
  }
  return out;
}

/** Airline probes over `db` ({flights, users, reservations}). */
export function airlineProbes(db) {
  const flights = Object.values(db.flights);
  const users = Object.values(db.users);
  const reservations = Object.values(db.reservations);
  const legs = flights.flatMap((flight) => Object.entries(flight.dates).map(([date, status]) => ({ flight, date, status })));
  const open = legs.filter((leg) => leg.status.status === 'available');
  const out = [];
  out.push(probe('searches', [
    call('list_all_airports', {}), call('transfer_to_human_agents', { summary: 'probe' }), call('calculate', { expression: '(350 + 120) * 2 - 100 / 3' }),
    ...first(open, 8).flatMap((leg) => [
      call('search_direct_flight', { origin: leg.flight.origin, destination: leg.flight.destination, date: leg.date }),
      call('search_onestop_flight', { origin: leg.flight.origin, destination: flights.find((other) => other.origin === leg.flight.destination)?.destination ?? 'JFK', date: leg.date }),
      call('get_flight_status', { flight_number: leg.flight.flight_number, date: leg.date }),
    ]),
    ...first(legs.filter((leg) => leg.status.status !== 'available'), 4).map((leg) => call('get_flight_status', { flight_number: leg.flight.flight_number, date: leg.date })),
    call('get_flight_status', { flight_number: 'HAT999', date: '2024-05-01' }), call('get_flight_status', { flight_number: flights[0].flight_number, date: '2030-01-01' }),
    call('get_user_details', { user_id: users[0].user_id }), call('get_user_details', { user_id: 'nobody' }),
    call('get_reservation_details', { reservation_id: reservations[0].reservation_id }), call('get_reservation_details', { reservation_id: 'NOPE00' }),
  ]));
  for (const reservation of first(reservations, 15)) {
    const methods = Object.keys(db.users[reservation.user_id].payment_methods);
    const renamed = reservation.passengers.map((passenger) => ({ ...passenger, first_name: `${passenger.first_name}x` }));
    const keep = reservation.flights.map(({ flight_number, date }) => ({ flight_number, date }));
    out.push(probe(`cancel ${reservation.reservation_id}`, [call('cancel_reservation', { reservation_id: reservation.reservation_id }), call('cancel_reservation', { reservation_id: reservation.reservation_id })]));
    out.push(probe(`passengers of ${reservation.reservation_id}`, [call('update_reservation_passengers', { reservation_id: reservation.reservation_id, passengers: renamed }), call('update_reservation_passengers', { reservation_id: reservation.reservation_id, passengers: [...renamed, renamed[0]] })]));
    for (const method of methods) {
      out.push(probe(`bags of ${reservation.reservation_id} paid with ${method}`, [
        call('update_reservation_baggages', { reservation_id: reservation.reservation_id, total_baggages: reservation.total_baggages + 2, nonfree_baggages: reservation.nonfree_baggages + 2, payment_id: method }),
        call('update_reservation_baggages', { reservation_id: reservation.reservation_id, total_baggages: 0, nonfree_baggages: 0, payment_id: method }),
      ]));
      for (const cabin of ['business', 'economy', 'basic_economy']) {
        out.push(probe(`${reservation.reservation_id} to ${cabin} paid with ${method}`, [call('update_reservation_flights', { reservation_id: reservation.reservation_id, cabin, flights: keep, payment_id: method })]));
      }
      const swap = open.find((leg) => leg.flight.origin === reservation.flights[0]?.origin && leg.flight.destination === reservation.flights[0]?.destination && leg.date !== reservation.flights[0]?.date);
      if (swap) {
        out.push(probe(`${reservation.reservation_id} moved to ${swap.date} paid with ${method}`, [call('update_reservation_flights', { reservation_id: reservation.reservation_id, cabin: reservation.cabin, flights: [{ flight_number: swap.flight.flight_number, date: swap.date }, ...keep.slice(1)], payment_id: method })]));
      }
    }
  }
  for (const user of first(users, 12)) {
    const leg = open.find((candidate) => candidate.status.available_seats.economy >= 2) ?? open[0];
    const price = leg.status.prices.economy;
    const methods = Object.values(user.payment_methods);
    const book = (payments, extra = {}) => call('book_reservation', {
      user_id: user.user_id, origin: leg.flight.origin, destination: leg.flight.destination, flight_type: 'one_way', cabin: 'economy',
      flights: [{ flight_number: leg.flight.flight_number, date: leg.date }], passengers: [{ first_name: user.name.first_name, last_name: user.name.last_name, dob: user.dob }],
      payment_methods: payments, total_baggages: 1, nonfree_baggages: 1, insurance: 'yes', ...extra,
    });
    const total = price + 30 + 50;
    out.push(probe(`bookings of ${user.user_id}`, [
      ...methods.map((method) => book([{ payment_id: method.id, amount: total }])),
      book([{ payment_id: methods[0].id, amount: total - 1 }]),
      book([{ payment_id: 'credit_card_0000000', amount: total }]),
      ...methods.filter((method) => method.amount !== undefined).map((method) => book([{ payment_id: method.id, amount: Math.min(method.amount, total) }, ...methods.filter((other) => other.source === 'credit_card').slice(0, 1).map((card) => ({ payment_id: card.id, amount: total - Math.min(method.amount, total) }))])),
      call('send_certificate', { user_id: user.user_id, amount: 150 }), call('send_certificate', { user_id: user.user_id, amount: 50 }),
      call('send_certificate', { user_id: user.user_id, amount: 250 }), call('send_certificate', { user_id: user.user_id, amount: 500 }),
    ]));
  }
  return out;
}

/**
 * Telecom probes over `db` (the agent's side: {plans, customers, lines, bills, devices}, lists). A probe may set up
 * its database with initialization actions on the agent's side, as a task does. Refuels are made only for
 * customers with a draft bill: for the others τ-bench adds a bill whose id it draws at random.
 */
export function telecomProbes(db) {
  const out = [];
  const [customer] = db.customers;
  const billsOf = (owner) => owner.bill_ids.map((id) => db.bills.find((bill) => bill.bill_id === id)).filter(Boolean);
  const hasDraft = (owner) => billsOf(owner).some((bill) => bill.status === 'Draft');
  const linePhone = db.lines.find((line) => customer.line_ids.includes(line.line_id) && line.phone_number !== customer.phone_number);
  const foreignLine = db.lines.find((line) => !customer.line_ids.includes(line.line_id));
  out.push(probe('lookups', [
    call('get_customer_by_phone', { phone_number: customer.phone_number }), call('get_customer_by_phone', { phone_number: linePhone?.phone_number ?? '000' }),
    call('get_customer_by_phone', { phone_number: db.customers.at(-1).phone_number }), call('get_customer_by_phone', { phone_number: '555-000-0000' }),
    call('get_customer_by_id', { customer_id: customer.customer_id }), call('get_customer_by_id', { customer_id: 'C0000' }),
    call('get_customer_by_name', { full_name: customer.full_name.toUpperCase(), dob: customer.date_of_birth }), call('get_customer_by_name', { full_name: customer.full_name, dob: '1900-01-01' }),
    ...[db.lines[0].line_id, db.devices[0].device_id, db.bills[0].bill_id, customer.customer_id, db.plans[0].plan_id, 'L0000', 'D0000', 'B0000', 'C0000', 'P0000', 'X1', '', 'l1001'].map((id) => call('get_details_by_id', { id })),
    ...db.customers.flatMap((owner) => [call('get_bills_for_customer', { customer_id: owner.customer_id }), call('get_bills_for_customer', { customer_id: owner.customer_id, limit: 1 }), call('get_bills_for_customer', { customer_id: owner.customer_id, limit: -1 }), call('get_bills_for_customer', { customer_id: owner.customer_id, limit: 0 })]),
    call('get_bills_for_customer', { customer_id: 'C0000' }),
    ...db.customers.flatMap((owner) => owner.line_ids.map((line_id) => call('get_data_usage', { customer_id: owner.customer_id, line_id }))),
    call('get_data_usage', { customer_id: customer.customer_id, line_id: foreignLine.line_id }), call('get_data_usage', { customer_id: 'C0000', line_id: customer.line_ids[0] }),
    call('transfer_to_human_agents', { summary: 'probe' }), call('set_data_usage', { customer_id: customer.customer_id, line_id: customer.line_ids[0], data_used_gb: 1 }), call('get_available_plan_ids', {}), call('no_such_tool', {}),
  ]));
  for (const owner of db.customers) {
    for (const line_id of owner.line_ids) {
      const ids = { customer_id: owner.customer_id, line_id };
      out.push(probe(`line ${line_id}`, [
        call('suspend_line', { ...ids, reason: 'travel' }), call('suspend_line', { ...ids, reason: 'travel' }), call('resume_line', ids), call('resume_line', ids),
        call('enable_roaming', ids), call('enable_roaming', ids), call('disable_roaming', ids), call('disable_roaming', ids),
        call('refuel_data', { ...ids, gb_amount: 0 }), call('refuel_data', { ...ids, gb_amount: -1 }),
        ...(hasDraft(owner) ? [2, 1.5, 0.3, 0.125, 7].map((gb_amount) => call('refuel_data', { ...ids, gb_amount })) : []),
        call('suspend_line', { customer_id: owner.customer_id, line_id: foreignLine.line_id, reason: 'x' }),
      ]));
    }
    const bills = billsOf(owner);
    for (const bill of bills) out.push(probe(`pay ${bill.bill_id}`, [call('send_payment_request', { customer_id: owner.customer_id, bill_id: bill.bill_id }), call('send_payment_request', { customer_id: owner.customer_id, bill_id: bill.bill_id })]));
    out.push(probe(`pay another's bill ${owner.customer_id}`, [call('send_payment_request', { customer_id: owner.customer_id, bill_id: db.bills.find((bill) => !owner.bill_ids.includes(bill.bill_id)).bill_id }), call('send_payment_request', { customer_id: 'C0000', bill_id: 'B0000' })]));
  }
  // An overdue bill is set up (as tasks do) only where τ-bench's setup succeeds: an active line, no overdue bill yet.
  for (const owner of db.customers.filter((candidate) => !billsOf(candidate).some((bill) => bill.status === 'Overdue'))) {
    for (const line_id of owner.line_ids.filter((id) => db.lines.find((line) => line.line_id === id)?.status === 'Active')) {
      const ids = { customer_id: owner.customer_id, line_id };
      out.push({
        ...probe(`overdue ${line_id}`, [call('resume_line', ids), call('send_payment_request', { customer_id: owner.customer_id, bill_id: 'B7777777' }), call('get_bills_for_customer', { customer_id: owner.customer_id }), call('get_details_by_id', { id: line_id })]),
        initial_state: { initialization_actions: [
          { env_type: 'assistant', func_name: 'set_data_usage', arguments: { ...ids, data_used_gb: 15.1 } },
          { env_type: 'assistant', func_name: 'enable_roaming', arguments: ids },
          { env_type: 'assistant', func_name: 'suspend_line_for_overdue_bill', arguments: { ...ids, new_bill_id: 'B7777777', contract_ended: line_id.endsWith('2') } },
        ] },
      });
    }
  }
  return out;
}

// A retail database of τ-bench's size and shape (50 products of 20 variants, 500 users, 1,000 orders), made up
// here, for benchmarks that must not need τ-bench's own data.

/** The database; order `#W<n>` is pending for even n, delivered for odd n. */
export function syntheticRetailDb() {
  const address = (n) => ({ address1: `${n} Main Street`, address2: `Suite ${n % 900}`, city: 'Springfield', country: 'USA', state: 'IL', zip: String(60000 + (n % 999)) });
  const products = {};
  for (let p = 0; p < 50; p++) {
    const product_id = String(1_000_000_000 + p);
    const variants = {};
    for (let v = 0; v < 20; v++) {
      const item_id = String(2_000_000_000 + p * 100 + v);
      variants[item_id] = { item_id, options: { color: ['red', 'blue', 'green', 'black'][v % 4], size: ['S', 'M', 'L', 'XL', 'XXL'][v % 5] }, available: v % 7 !== 0, price: 10 + p * 3.17 + v * 0.83 };
    }
    products[product_id] = { name: `Product ${p}`, product_id, variants };
  }
  const users = {};
  const orders = {};
  for (let u = 0; u < 500; u++) {
    const user_id = `user_${u}`;
    users[user_id] = {
      user_id, name: { first_name: `First${u}`, last_name: `Last${u}` }, address: address(u), email: `user${u}@example.test`,
      payment_methods: { [`gift_card_${u}`]: { source: 'gift_card', id: `gift_card_${u}`, balance: 500 }, [`credit_card_${u}`]: { source: 'credit_card', id: `credit_card_${u}`, brand: 'visa', last_four: '4242' } },
      orders: [],
    };
  }
  for (let o = 0; o < 1000; o++) {
    const user_id = `user_${o % 500}`;
    const order_id = `#W${o}`;
    const items = [0, 1, 2].map((k) => {
      const product = products[String(1_000_000_000 + ((o + k * 17) % 50))];
      const variant = Object.values(product.variants)[(o + k) % 20];
      return { name: product.name, product_id: product.product_id, item_id: variant.item_id, price: variant.price, options: variant.options };
    });
    const amount = Math.round(items.reduce((sum, item) => sum + item.price, 0) * 100) / 100;
    orders[order_id] = { order_id, user_id, address: address(o), items, status: o % 2 === 0 ? 'pending' : 'delivered', fulfillments: [], payment_history: [{ transaction_type: 'payment', amount, payment_method_id: `credit_card_${o % 500}` }] };
    users[user_id].orders.push(order_id);
  }
  return { products, users, orders };
}

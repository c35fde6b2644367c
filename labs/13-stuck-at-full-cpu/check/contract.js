'use strict';
// Stage 1 of lab 13's check: the walkthrough's "The API", point by point,
// on a few orders (the families in orders.js test reads at scale). A fix
// must keep every point: imports that skip ids already stored, times with
// any time zone, periods that include `from` and leave out `to`, a
// customer with no orders, and a 400 with a JSON error for what the API
// does not take (an import with one bad order imports nothing).

const { json } = require('../../../scripts/harness/http-client');
const { responseCase, truncate } = require('../../../scripts/checks/gates');
const { readProblem, asJson, sortOrders, iso } = require('./orders');

/** An ISO 8601 time of `ms` written in the time zone `offsetMinutes` east of UTC. */
function withOffset(ms, offsetMinutes) {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const isTimeout = (res) => res instanceof Error && /no answer within/.test(res.message);

/**
 * @param {{ask:(path:string, options?:object) => Promise<object|Error>, rand:object, names:object, timeoutMs:number}} options
 * @returns {Promise<{responses:object[], stuck:{path:string}|null}>}
 */
async function contractCases({ ask, rand, names, timeoutMs }) {
  const responses = [];
  let stuck = null;
  const send = async (path, options = {}) => {
    if (stuck) return new Error('not sent: the app was stuck');
    const res = await ask(path, { ...options, timeoutMs });
    if (isTimeout(res)) stuck = { path: `${options.method || 'GET'} ${path}` };
    return res;
  };
  const post = (body) => send('/orders', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  const jsonError = (name, res) =>
    responses.push(
      responseCase(name, res, {
        status: 400,
        describe: 'status 400 with a JSON error',
        body: (text) => (typeof json({ body: text })?.error === 'string' ? null : `no {"error": "..."} in ${truncate(text, 80)}`),
      }),
    );
  const read = (name, path, expected) => send(path).then((res) => {
    const problem = readProblem(res, expected);
    responses.push({ name, pass: !problem, expected: 'status 200 with every order once, in (placedAt, id) order', actual: problem || 'as expected' });
  });

  const from = contractHour(rand);
  const to = from + 3_600_000;
  const customer = names.customer();
  const other = names.customer();
  const order = (placedAt, who = customer) => ({ id: names.orderId(), customer: who, placedAt, total: rand.int(100, 9999) / 100 });
  const orders = [order(from), order(from + 1), order(from + 1), order(to - 1, other), order(from - 1), order(to)];
  const inside = orders.filter((o) => o.placedAt >= from && o.placedAt < to);

  // Times written in other time zones mean the same instants.
  const batch = orders.map((o, i) => ({ ...asJson(o), placedAt: i % 2 ? withOffset(o.placedAt, 120) : withOffset(o.placedAt, -330) }));
  const expectImport = (name, res, imported, skipped) =>
    responses.push(
      responseCase(name, res, {
        status: 201,
        describe: `status 201 {"imported": ${imported}, "skipped": ${skipped}}`,
        body: (text) => {
          const b = json({ body: text });
          return b && b.imported === imported && b.skipped === skipped ? null : `got ${truncate(text, 80)}`;
        },
      }),
    );
  expectImport(`an import of ${orders.length} orders, times written with offsets (+02:00, -05:30)`, await post({ orders: batch }), orders.length, 0);
  expectImport('the same import again (ids already stored are skipped)', await post({ orders: batch }), 0, orders.length);
  await read(
    'a period given with an offset: from included, to left out, times answered in UTC',
    `/orders?from=${encodeURIComponent(withOffset(from, 60))}&to=${encodeURIComponent(withOffset(to, 60))}`,
    { kind: 'period', from, to, orders: sortOrders(inside) },
  );
  await read(`a customer's orders (${customer})`, `/customers/${customer}/orders`, { kind: 'customer', customer, orders: sortOrders(orders.filter((o) => o.customer === customer)) });
  const nobody = names.customer();
  await read(`a customer with no orders (${nobody})`, `/customers/${nobody}/orders`, { kind: 'customer', customer: nobody, orders: [] });

  // What the API does not take.
  const bad = order(from + 5);
  jsonError('an import with one bad order (placedAt without a time zone)', await post({ orders: [asJson(bad), { ...asJson(order(from + 6)), placedAt: iso(from + 6).slice(0, 19) }] }));
  await read('the period after that refused import: nothing of it was stored', `/orders?from=${iso(from)}&to=${iso(to)}`, { kind: 'period', from, to, orders: sortOrders(inside) });
  jsonError('an import with a negative total', await post({ orders: [{ ...asJson(order(from + 7)), total: -1 }] }));
  jsonError('an import with no orders list', await post({ order: [] }));
  jsonError('an import that is not JSON', await post('{"orders": ['));
  jsonError('a period whose from is not before its to', await send(`/orders?from=${iso(to)}&to=${iso(from)}`));
  jsonError('a period without its to', await send(`/orders?from=${iso(from)}`));
  jsonError('a period with a date for from', await send(`/orders?from=${iso(from).slice(0, 10)}&to=${iso(to)}`));
  return { responses, stuck };
}

const CONTRACT_DAYS = 151;

/**
 * The start of the contract's hour of orders: 09:00 on a day from June 1
 * to October 29, 2030. Its orders stay in the store, so the hour must miss
 * every later read's period: the warm-up's day (December 1 to 21, 2030,
 * in index.js) and the families' 2031. (It once ran 300 days from June 1,
 * into December and 2031: in one run in about 300 its orders fell inside
 * the warm-up's day, whose read then held six orders more than the check
 * expected, and a correct app failed.)
 */
function contractHour(rand) {
  return Date.UTC(2030, 5, 1 + rand.int(0, CONTRACT_DAYS - 1), 9, 0, 0, rand.int(0, 999));
}

module.exports = { contractCases, withOffset, contractHour };

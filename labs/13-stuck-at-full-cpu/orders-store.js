'use strict';
// The shop's order table, kept in memory for the lab: a stand-in for the
// database the service uses in production, answering the keyset query the
// service runs there:
//
//   SELECT * FROM orders
//    WHERE placed_at >= $startAt               -- or: (placed_at, id) > ($startAfter.placedAt, $startAfter.id)
//      AND placed_at <  $before                -- when given
//      AND customer  =  $customer              -- when given
//    ORDER BY placed_at, id
//    LIMIT $limit                              -- at most 1000 rows a query
//
// Like the database, it answers at once and synchronously here: the rows
// are in memory, sorted by (placedAt, id), once for the whole table and
// once per customer. You should not need to change this file: the service
// uses it from app.js.

const MAX_LIMIT = 1000;

/** Sorts by (placedAt, id): the table's order, and every query's. */
function compareOrders(a, b) {
  if (a.placedAt !== b.placedAt) return a.placedAt - b.placedAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The first index of `rows` (sorted) whose row is not before the position `isBefore` describes. */
function lowerBound(rows, isBefore) {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(rows[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `sorted` and `added` (each sorted) as one sorted array. */
function mergeSorted(sorted, added) {
  const merged = new Array(sorted.length + added.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < sorted.length && j < added.length) merged[k++] = compareOrders(sorted[i], added[j]) <= 0 ? sorted[i++] : added[j++];
  while (i < sorted.length) merged[k++] = sorted[i++];
  while (j < added.length) merged[k++] = added[j++];
  return merged;
}

class OrdersStore {
  constructor() {
    this.rows = []; // every order, sorted by (placedAt, id)
    this.byCustomer = new Map(); // customer → that customer's orders, sorted the same way
    this.ids = new Set();
  }

  /** How many orders the table holds. */
  get size() {
    return this.rows.length;
  }

  /**
   * Adds orders ({ id, customer, placedAt (ms since 1970), total }); an id
   * the table already holds is skipped. Returns how many were added.
   */
  insert(orders) {
    const added = [];
    for (const order of orders) {
      if (this.ids.has(order.id)) continue;
      this.ids.add(order.id);
      added.push(Object.freeze({ ...order }));
    }
    added.sort(compareOrders);
    this.rows = mergeSorted(this.rows, added);
    const perCustomer = new Map();
    for (const order of added) {
      if (!perCustomer.has(order.customer)) perCustomer.set(order.customer, []);
      perCustomer.get(order.customer).push(order);
    }
    for (const [customer, theirs] of perCustomer) {
      this.byCustomer.set(customer, mergeSorted(this.byCustomer.get(customer) || [], theirs));
    }
    return added.length;
  }

  /**
   * One page of orders in (placedAt, id) order.
   * @param {object} query
   * @param {number} [query.startAt] the first placedAt to include (ms), inclusive
   * @param {{placedAt:number, id:string}} [query.startAfter] start after this row
   *   in (placedAt, id) order, exclusive; instead of startAt
   * @param {number} [query.before] the placedAt to stop before (ms), exclusive
   * @param {string} [query.customer] only this customer's orders
   * @param {number} query.limit at most this many rows, 1 to 1000
   * @returns {object[]} the rows, frozen
   */
  find({ startAt, startAfter, before, customer, limit }) {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new RangeError(`limit must be a whole number from 1 to ${MAX_LIMIT}, not ${limit}`);
    }
    if (startAt !== undefined && startAfter !== undefined) throw new TypeError('give startAt or startAfter, not both');
    const rows = customer === undefined ? this.rows : this.byCustomer.get(customer) || [];
    let first = 0;
    if (startAfter !== undefined) first = lowerBound(rows, (row) => compareOrders(row, startAfter) <= 0);
    else if (startAt !== undefined) first = lowerBound(rows, (row) => row.placedAt < startAt);
    const end = before === undefined ? rows.length : lowerBound(rows, (row) => row.placedAt < before);
    return rows.slice(first, Math.max(first, Math.min(end, first + limit)));
  }
}

module.exports = { OrdersStore, compareOrders, MAX_LIMIT };

'use strict';
// Runs `work(item)` for every item, at most `atOnce` at a time: for tests
// whose time is mostly spent starting Node and waiting, which may overlap
// without distorting anything (nothing they do is measured).

/** @returns {Promise<Array>} each item's result (or its error, as a rejected entry's Error), in order */
async function inPool(items, atOnce, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]).catch((err) => (err instanceof Error ? err : new Error(String(err))));
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results;
}

module.exports = { inPool };

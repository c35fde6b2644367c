'use strict';
// How a lab's app is started outside its check (`workbook run`, `load`,
// `profile`, `capture`): with the lab's own node flags, and with the lab's
// services (a catalogue, a database…) started here and handed to the app
// through the same environment variables its check gives it. A check
// starts its own services (it controls them) and gives the app those
// variables and no others (CheckContext.start), so an app sees the same
// things in every mode.

const { checkOf, relative } = require('../lib/labs');

/**
 * Starts the lab's services, if it has any.
 * @param {object} lab
 * @param {{progress?: (line:string) => void}} [options]
 * @returns {Promise<{env:Record<string,string>, nodeArgs:string[], countCalls:string|null, close:() => Promise<void>, describe:string|null}>}
 */
async function launchFor(lab, { progress = () => {} } = {}) {
  const check = checkOf(lab);
  const nodeArgs = check.nodeArgs || [];
  const countCalls = check.countCalls || null;
  if (!check.services) return { env: {}, nodeArgs, countCalls, close: async () => {}, describe: null };
  progress(`Starting ${check.services.describe}, as the check does`);
  const started = await check.services.start({ progress });
  const given = Object.keys(started.env || {}).sort();
  const declared = [...check.services.env].sort();
  if (given.join() !== declared.join()) {
    await started.close();
    throw new Error(`${relative(lab.checkModule)}: services.start() gave ${given.join(', ') || 'nothing'}, but services.env declares ${declared.join(', ')}.`);
  }
  return { env: started.env, nodeArgs, countCalls, close: () => started.close(), describe: check.services.describe };
}

module.exports = { launchFor };

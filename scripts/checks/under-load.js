'use strict';
// What a check says about the answers an app gave while it was loaded: the
// answers kept by a load's sampler connection (runLoad's `sample`) and by
// its route probes (runLoad's `probes`), each compared with what the lab's
// contract says it must be. Lone requests show that an app CAN answer
// right; these show that it still does when busy, so a "fix" that does
// cheaper work under load (a lower compression quality, fewer items, a
// placeholder) fails with a sentence that says which answers differed.

/**
 * A response case for answers served under load.
 * @param {object} options
 * @param {string} options.name what was sampled, e.g. '40 exports sampled under load'
 * @param {Array<{path:string, status:number, headers:object, body:Buffer|string}>} options.answers
 * @param {(answer:object) => string|null} options.verify a sentence on what is wrong, or null
 * @param {string} options.expected what every answer must be
 * @param {string[]} [options.errors] connection errors of the sampler
 * @param {number} [options.atLeast=1] fewer answers than this is itself a failure
 */
function answersUnderLoad({ name, answers, verify, expected, errors = [], atLeast = 1 }) {
  const wrong = [];
  for (const answer of answers) {
    const problem = verify(answer);
    if (problem) wrong.push(`${answer.path}: ${problem}`);
  }
  const pass = wrong.length === 0 && errors.length === 0 && answers.length >= atLeast;
  let actual;
  if (answers.length < atLeast) actual = `only ${answers.length} answered under load${errors.length ? ` (${errors[0]})` : ''}`;
  else if (wrong.length) actual = `${wrong.length} of ${answers.length} differed, e.g. ${wrong[0]}`;
  else if (errors.length) actual = `${errors.length} failed: ${errors[0]}`;
  else actual = `all ${answers.length} right`;
  return { name, pass, expected, actual };
}

/**
 * A response case per route probed during a load: every answer 200 and,
 * where the route has a `verify`, each kept answer right.
 * @param {import('../harness/route-probe').RouteTiming[]} timings
 * @param {Record<string, (sample:object) => string|null>} [verifiers] by route name
 */
function routesUnderLoad(timings, verifiers = {}) {
  return timings.map((route) => {
    const verify = verifiers[route.name];
    const wrong = verify ? route.samples.map((s) => ({ s, problem: verify(s) })).filter((x) => x.problem) : [];
    const pass = route.non200 === 0 && route.failures === 0 && wrong.length === 0 && route.answered > 0;
    const problems = [
      route.non200 ? `${route.non200} answered with another status` : null,
      route.failures ? `${route.failures} failed` : null,
      wrong.length ? `${wrong.length} with a wrong body, e.g. ${wrong[0].problem}` : null,
      route.answered ? null : 'none answered',
    ].filter(Boolean);
    return {
      name: `${route.sent} requests to ${route.name} during the load`,
      pass,
      expected: verify ? 'status 200 and the right answer for each' : 'status 200 for each',
      actual: problems.length ? problems.join(', ') : `${route.answered} answered, all right`,
    };
  });
}

/** The route whose median latency under load was the longest, and that median. */
function slowestRoute(timings) {
  return timings.reduce((worst, r) => (!worst || r.p50 > worst.p50 ? r : worst), null);
}

module.exports = { answersUnderLoad, routesUnderLoad, slowestRoute };

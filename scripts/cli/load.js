'use strict';
const { startApp } = require('../harness/app-process');
const { relative } = require('../lib/labs');
const { dim } = require('../lib/style');
const { requireLab, appFileFor, loadArgs, APP_OPTIONS, LOAD_OPTIONS } = require('./options');
const { UsageError } = require('./errors');

module.exports = {
  usage: 'npx workbook load <lab> [--solution | --app FILE | --url URL] [--duration S] [--connections N]',
  help: [
    'Starts the app (yours, the solution, or FILE) on a free port, or uses one you',
    'already run at --url (e.g. under node --prof), and loads it the way the lab',
    'describes, then prints autocannon\'s own table.',
    '  --duration S      seconds of load (default: the lab\'s, usually 10)',
    '  --connections N   concurrent connections (default: the lab\'s)',
  ],
  options: { ...APP_OPTIONS, ...LOAD_OPTIONS, url: { type: 'string' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const { standard, duration, connections } = loadArgs(lab, values, this.usage);
    let app = null;
    let url = values.url;
    if (url) {
      if (values.app || values.solution) throw new UsageError('Use --url on its own: it loads an app you already run.', this.usage);
      if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(url)) {
        throw new UsageError('--url must be a local address such as http://127.0.0.1:3000 (load stays on this machine).', this.usage);
      }
      url = url.replace(/\/$/, '');
    } else {
      const file = appFileFor(lab, values, this.usage);
      console.error(dim(`Starting ${relative(file)} …`));
      app = await startApp(file, { lab, progress: (line) => console.error(line) });
      url = app.url;
    }
    try {
      // A load with work in the background (lab 08's imports) says what it did.
      const background = standard.setup ? await standard.setup(url) : null;
      console.error(dim(`Load: ${standard.describe}, ${duration} s`));
      // Loaded here, not at the top: every other command starts 0.15 s sooner.
      const autocannon = require('autocannon');
      const instance = autocannon({ url: url + standard.path, connections, duration, ...requestsOf(standard) });
      const watch = watchAnswers(instance);
      autocannon.track(instance, { outputStream: process.stdout, renderProgressBar: Boolean(process.stdout.isTTY) });
      const result = await instance;
      if (app) app.assertAlive('under load');
      if (background && background.report) console.log(`\n${background.report()}`);
      const stopped = watch.stoppedAnswering(result);
      if (stopped) console.log(`\n${stopped}`);
      return result.errors > 0 ? 1 : 0;
    } finally {
      if (app) await app.stop();
    }
  },
};

/** A load of POSTs (standardLoad.request): autocannon asks for each request whole. */
function requestsOf(standard) {
  if (!standard.request) return {};
  let i = 0;
  return { requests: [{ setupRequest: (req) => ({ ...req, ...standard.request(i++) }) }] };
}

/**
 * Watches a load for the app going away: when every request from some
 * moment on was refused or cut off, the table alone reads as zeros and
 * thousands of "errors". stoppedAnswering() then says so in a sentence.
 */
function watchAnswers(instance) {
  const started = Date.now();
  let lastAnswer = null;
  let firstGone = null;
  const gone = { count: 0, codes: new Set() };
  instance.on('response', () => {
    lastAnswer = Date.now();
    firstGone = null;
    gone.count = 0;
    gone.codes.clear();
  });
  instance.on('reqError', (err) => {
    if (!['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(err && err.code)) return;
    if (firstGone === null) firstGone = Date.now();
    gone.count++;
    gone.codes.add(err.code);
  });
  return {
    stoppedAnswering(result) {
      if (firstGone === null || gone.count < 2) return null;
      return stoppedSentence({
        url: result.url,
        afterSeconds: ((lastAnswer ?? firstGone) - started) / 1000,
        answeredBefore: lastAnswer !== null,
        attempts: gone.count,
        refused: gone.codes.has('ECONNREFUSED'),
      });
    },
  };
}

/** What a learner reads when the app stopped answering under load. */
function stoppedSentence({ url, afterSeconds, answeredBefore, attempts, refused }) {
  const when = answeredBefore ? `${afterSeconds.toFixed(1)} s into the load` : 'from the start of the load';
  const how = refused ? 'every connection was refused' : 'every connection was cut off';
  return (
    `The app at ${url} stopped answering ${when}: from then on ${how} (${attempts.toLocaleString('en-GB')} attempts), so the table's zeros and errors are not its speed. ` +
    'It has most likely crashed or been stopped: look at the terminal it runs in for its last words (a FATAL ERROR, a stack trace, or a diagnostic report it wrote), start it again, and load it once more.'
  );
}

module.exports.stoppedSentence = stoppedSentence;


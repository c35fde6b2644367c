'use strict';
// An interactive flame graph with 0x 6. (Clinic.js bundles an older 0x for
// `clinic flame`; this calls 0x 6 directly.) 0x starts the app under
// `node --prof`, we apply the load once it listens, and 0x renders the ticks.

const path = require('node:path');
const { loadOnPort } = require('../session');
const { relative } = require('../../lib/labs');
const { withAppEnvironment } = require('../child-env');

module.exports = {
  name: 'flame',
  summary: 'interactive flame graph (0x 6), an HTML file for your browser',
  async run({ lab, file, dir, duration, progress }) {
    const zeroEks = require('0x'); // here, not on top: 0x loads a bundler that every other command can do without
    progress(`Starting ${relative(file)} under 0x`);
    const load = loadOnPort({ lab, duration, progress, stopMessage: 'Stopping the app; 0x turns its ticks into a flame graph' });
    const html = await withAppEnvironment(file, () =>
      zeroEks({
        argv: [file],
        workingDir: dir,
        outputDir: path.join(dir, 'data'),
        outputHtml: path.join(dir, 'flamegraph.html'),
        title: `Lab ${lab.id}: ${relative(file)}`,
        pathToNodeBinary: process.execPath,
        silent: true,
        onPort: (port, done) => load.onPort(port, done),
      }),
      { lab, progress },
    );
    await load.finished();
    return {
      open: html,
      howToOpen: 'open it in a browser; wide boxes at the top are where the CPU was (click to zoom, search with the box top right)',
    };
  },
};

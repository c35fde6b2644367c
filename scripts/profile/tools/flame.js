'use strict';
// An interactive flame graph with 0x 6. (Clinic.js bundles an older 0x for
// `clinic flame`; this calls 0x 6 directly.) 0x starts the app under
// `node --prof`, we apply the load once it listens, and 0x renders the ticks.

const path = require('node:path');
const zeroEks = require('0x');
const { applyStandardLoad } = require('../session');
const { relative } = require('../../lib/labs');
const { withAppEnvironment } = require('../child-env');

module.exports = {
  name: 'flame',
  summary: 'interactive flame graph (0x 6), an HTML file for your browser',
  async run({ lab, file, dir, duration, progress }) {
    progress(`Starting ${relative(file)} under 0x`);
    let loadError = null;
    const html = await withAppEnvironment(file, () =>
      zeroEks({
        argv: [file],
        workingDir: dir,
        outputDir: path.join(dir, 'data'),
        outputHtml: path.join(dir, 'flamegraph.html'),
        title: `Lab ${lab.id}: ${relative(file)}`,
        pathToNodeBinary: process.execPath,
        silent: true,
        onPort: (port, done) => {
          applyStandardLoad({ lab, url: `http://127.0.0.1:${port}`, duration, progress })
            .then(() => {
              progress('Stopping the app; 0x turns its ticks into a flame graph');
              done();
            })
            .catch((err) => {
              loadError = err;
              done();
            });
        },
      }),
    );
    if (loadError) throw loadError;
    return {
      artifacts: [html],
      open: html,
      howToOpen: 'open it in a browser; wide boxes at the top are where the CPU was (click to zoom, search with the box top right)',
    };
  },
};

'use strict';
// Where the bytes are allocated, garbage included: V8's sampling heap
// profiler, started through the inspector for a window of load with its
// two "include objects collected by major/minor GC" flags, as DevTools'
// Memory panel does when its "Allocation sampling" boxes of the same
// names are ticked. Without them (as `node --heap-prof` and Clinic.js
// HeapProfiler start it) V8 drops a sample when its object is collected,
// and a profile of a hot path that allocates only garbage comes back
// nearly empty: measured on Node 20, 22, 24 and 26, 0.0 MB of about 21 MB
// allocated in a loop, against 21.7 to 22.8 MB with the flags.
//
// The app starts with --inspect=127.0.0.1:0 (a free port, loopback only).
// After a warm-up of the lab's standard load, the profiler samples one
// allocation in about every SAMPLING_INTERVAL bytes for `duration` s of
// load; the census's allocation meter counts every byte meanwhile, so the
// sampled total can be set beside the real one.

const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { withApp, applyStandardLoad } = require('../session');
const { InspectorClient, inspectorUrl } = require('../inspector-client');
const { readHeapProfile } = require('../read/heap-profile');
const { table } = require('../read/table');

const WARMUP_SECONDS = 2;
// V8's default for the inspector's sampling is 32 KB; a smaller interval
// gives more samples in a short window, at a cost the load does not feel.
const SAMPLING_INTERVAL = 16 * 1024;

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

module.exports = {
  name: 'alloc',
  summary: 'sampling heap profile of everything the load allocates, garbage included (the inspector\'s HeapProfiler); opens in Chrome DevTools',
  async run({ lab, file, dir, duration, progress, print }) {
    const profileFile = path.join(dir, 'allocations.heapprofile');
    await withApp({ lab, file, nodeArgs: ['--inspect=127.0.0.1:0'], progress }, async (app) => {
      const deadline = Date.now() + 10_000;
      let url = null;
      while (!(url = inspectorUrl(app.output.text(200))) && Date.now() < deadline) await sleep(50);
      if (!url) throw new Error('the app did not print its inspector\'s address within 10 s of starting with --inspect');
      const client = await InspectorClient.connect(url, { timeoutMs: 60_000 });
      try {
        await applyStandardLoad({ lab, url: app.url, duration: WARMUP_SECONDS, progress, label: ' (warm-up)' });
        progress(`Sampling every allocation of about ${SAMPLING_INTERVAL / 1024} KB, collected ones included, through the inspector's HeapProfiler`);
        await client.send('HeapProfiler.enable');
        await client.send('HeapProfiler.startSampling', { samplingInterval: SAMPLING_INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        const mark = await app.allocationMark();
        const load = await applyStandardLoad({ lab, url: app.url, duration, progress });
        const { profile } = await client.send('HeapProfiler.stopSampling');
        const metered = await app.allocatedSince(mark);
        app.assertAlive('under load');
        fs.writeFileSync(profileFile, JSON.stringify(profile));
        const reading = readHeapProfile(profile, { appFile: file, top: 10 });
        const perRequest = load.responses ? metered.allocated / load.responses : 0;
        print(
          `Allocated during ${duration} s of load: ${mb(metered.allocated)} in ${load.responses} responses, ${(perRequest / 1024).toFixed(0)} KB each ` +
            `(counted by the workbook's allocation meter; ${metered.scavenges} scavenges, ${metered.markCompacts} mark-compacts, ${(metered.pauseUs / 1000).toFixed(0)} ms of pauses). ` +
            `The profile sampled ${mb(reading.totalBytes)} of it.`,
        );
        print(
          'Bytes allocated by function (sampled; their own allocations, not their callees\')\n' +
            table(reading.functions.map((f) => [`${(100 * f.share).toFixed(1)}%`, mb(f.bytes), f.functionName, f.origin, f.location]), ['share', 'sampled', 'function', 'origin', 'where']),
        );
        fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ metered, responses: load.responses, reading }, null, 2));
      } finally {
        client.close();
      }
    });
    return {
      open: profileFile,
      howToOpen: 'Chrome DevTools → Memory → "Load profile…": the Bottom-Up and Chart views of the same samples',
    };
  },
};

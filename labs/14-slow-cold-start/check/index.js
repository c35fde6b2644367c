'use strict';
// Lab 14's check. TODO: what it measures and why that figure means the same
// on any machine (a ratio against the reference run interleaved, a cost
// calibrated on the machine, or a machine-independent quantity). The measured
// margins are in check/margins.json (npm run bench -- --runs 10 --write).

const { get } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { responseCase } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');

const SETTINGS = { samples: 5 };

const standardLoad = {
  path: '/work',
  connections: 10,
  duration: 10,
  describe: 'GET /work, 10 connections',
  examples: ['/work', '/health'],
};

async function measure(ctx) {
  ctx.progress('Starting the app');
  const app = await ctx.start(ctx.candidate);
  const responses = [responseCase('GET /work', await get(`${app.url}/work`).catch((e) => e), { status: 200 })];
  const times = [];
  for (let i = 0; i < SETTINGS.samples; i++) times.push((await get(`${app.url}/work`)).ms);
  return {
    // TODO: a machine-relative figure for each gate.
    figures: { 'work-latency': { value: median(times), scale: `median of ${SETTINGS.samples} requests` } },
    responses,
    info: [],
    noise: [],
    series: {},
  };
}

module.exports = defineCheck(
  {
    gates: {
      'work-latency': {
        label: 'TODO: what is measured, in plain words',
        op: '<',
        threshold: 1000,
        unit: 'ms',
        pass: 'TODO: what a pass says about the app.',
        fail: 'TODO: what a fail says, and where to look.',
      },
    },
    starterFails: ['work-latency'],
    settings: SETTINGS,
    standardLoad,
    advice: 'TODO: Profile it with `npx workbook profile 14 --tool cpu`',
    measure,
    explain: {
      kind: 'machine-independent',
      noise: 'TODO: when the check says "too noisy, rerun".',
    },
    captures: [],
    tools: [],
    charts: [{ kind: 'gate-bars', title: 'TODO', gates: [{ id: 'work-latency', label: 'TODO' }] }],
  },
  __filename,
);

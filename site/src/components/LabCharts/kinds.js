// The kinds of chart LabCharts draws (charts.js), listed where the workbook
// plugin can read them at build time too: a check that asks for any other
// kind fails the build. Keep in step with CHART_KINDS in
// scripts/checks/define-check.js.
module.exports = { CHART_KINDS: ['gate-bars', 'rounds', 'heap-over-requests', 'ceilings'] };

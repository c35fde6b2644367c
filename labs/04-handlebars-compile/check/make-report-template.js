'use strict';
// For workbook maintainers: writes lab 04's report template,
// views/report.hbs. A quarterly operations report
// with one hand-shaped section per region and business line, as such
// templates grow in real projects. Compile time follows the number of tags,
// so the section count sets how slow the lab's bug is (see the lab's README).
// Rerun after changing it, then `node scripts/dev/record-shipped.js`.

const fs = require('node:fs');
const path = require('node:path');

const REGIONS = ['North America', 'Latin America', 'UK and Ireland', 'Nordics', 'DACH', 'France and Benelux', 'Southern Europe', 'Middle East', 'Africa', 'India', 'Japan and Korea', 'Australia and NZ'];
const LINES = ['Retail', 'Wholesale', 'Online', 'Logistics', 'Services'];

const camel = (words) =>
  words.join(' ').replace(/[^a-zA-Z ]/g, '').split(/\s+/).map((w, i) => (i ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join('');

function section(region, line) {
  const key = camel([region, line]);
  return `
<section class="unit" id="${key}">
  <h2>${region} · ${line}</h2>
  {{#with units.${key}}}
  <p class="lede">Revenue {{money revenue}} ({{trend change}} on last quarter) from {{units}} units across {{sites}} sites. Prepared for {{@root.user}}.</p>
  <dl class="kpis">
    <dt>Orders</dt><dd>{{orders}}</dd>
    <dt>Average order</dt><dd>{{money averageOrder}}</dd>
    <dt>Gross margin</dt><dd>{{percent margin}}</dd>
    <dt>Returns</dt><dd>{{percent returns}}</dd>
    <dt>On-time delivery</dt><dd>{{percent onTime}}</dd>
    <dt>Headcount</dt><dd>{{headcount}}</dd>
  </dl>
  <h3>Against plan</h3>
  <dl class="plan">
    <dt>Revenue</dt><dd>{{money plan.revenue}} planned, {{trend plan.revenueGap}}</dd>
    <dt>Orders</dt><dd>{{plan.orders}} planned, {{trend plan.ordersGap}}</dd>
    <dt>Gross margin</dt><dd>{{percent plan.margin}} planned, {{trend plan.marginGap}}</dd>
    <dt>Headcount</dt><dd>{{plan.headcount}} planned, {{trend plan.headcountGap}}</dd>
  </dl>
  <table class="months">
    <thead><tr><th>Month</th><th>Revenue</th><th>Orders</th><th>Margin</th></tr></thead>
    <tbody>{{#each months}}<tr><td>{{label}}</td><td>{{money revenue}}</td><td>{{orders}}</td><td>{{percent margin}}</td></tr>{{/each}}</tbody>
  </table>
  <p class="commentary">{{#if commentary}}{{commentary}}{{else}}No commentary from {{owner}} yet.{{/if}}</p>
  {{#if flagged}}<p class="flag">Below target for ${region} ${line.toLowerCase()}: {{reason}}. Owner: {{owner}}.</p>{{/if}}
  <table>
    <thead><tr><th>Product</th><th>Units</th><th>Revenue</th><th>Margin</th><th>Change</th><th>Stock</th></tr></thead>
    <tbody>
      {{#each rows}}
      <tr{{#if @first}} class="top"{{/if}}><td>{{name}}</td><td>{{units}}</td><td>{{money revenue}}</td><td>{{percent margin}}</td><td>{{trend change}}</td><td>{{#if backorder}}Backorder{{else}}In stock{{/if}}</td></tr>
      {{/each}}
    </tbody>
    <tfoot><tr><td>${line} total</td><td>{{units}}</td><td>{{money revenue}}</td><td>{{percent margin}}</td><td>{{trend change}}</td><td></td></tr></tfoot>
  </table>
  {{#if notes.length}}
  <ul class="notes">{{#each notes}}<li>{{this}}</li>{{/each}}</ul>
  {{/if}}
  {{else}}
  <p class="missing">No figures for ${region} ${line.toLowerCase()} this quarter.</p>
  {{/with}}
</section>`;
}

const sections = REGIONS.flatMap((region) => LINES.map((line) => section(region, line)));
const toc = REGIONS.flatMap((region) => LINES.map((line) => `    <li><a href="#${camel([region, line])}">${region} · ${line}</a></li>`)).join('\n');

const template = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{{title}} · {{user}}</title>
  <style>
    body { font: 14px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #1d2430; }
    h1 { font-size: 1.8rem; margin-bottom: 0; }
    .unit { border-top: 1px solid #d6dbe3; padding-top: 1rem; margin-top: 2rem; }
    .kpis { display: grid; grid-template-columns: repeat(6, auto); gap: 0.25rem 1rem; }
    .kpis dt { color: #5b6472; font-size: 0.8rem; }
    .flag { background: #fff4e5; border-left: 4px solid #f59f00; padding: 0.5rem 1rem; }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: right; padding: 0.2rem 0.5rem; border-bottom: 1px solid #eef1f5; }
    th:first-child, td:first-child { text-align: left; }
    tr.top td { font-weight: 600; }
  </style>
</head>
<body>
  <header>
    <h1>{{title}}</h1>
    <p>{{period}} · prepared for <strong>{{user}}</strong> · figures in {{currency}}</p>
  </header>
  <nav>
    <h2>Contents</h2>
    <ol>
${toc}
    </ol>
  </nav>
  <main>${sections.join('\n')}
  </main>
  <footer>
    <p>{{sections}} business units · generated for {{user}} · {{period}}</p>
  </footer>
</body>
</html>
`;

const file = path.join(__dirname, '..', 'views', 'report.hbs');
fs.writeFileSync(file, template);
console.log(`Wrote ${path.relative(process.cwd(), file)}: ${sections.length} sections, ${(template.length / 1024).toFixed(0)} KiB, ${(template.match(/\{\{/g) || []).length} tags.`);

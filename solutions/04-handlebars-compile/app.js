'use strict';
// Reference fix for lab 04: compile the report template once, at start-up,
// and only render it per request. handlebars.compile() is lazy, so the app
// renders once before it listens: that call is the real compile. Everything
// else is as in the starter.
const fs = require('node:fs');
const path = require('node:path');
const express = require('express');
const handlebars = require('handlebars');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
// The template belongs to the lab: this resolves to
// labs/04-handlebars-compile/views/report.hbs from solutions/ and from labs/.
const TEMPLATE = path.join(__dirname, '..', '..', 'labs', '04-handlebars-compile', 'views', 'report.hbs');

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
handlebars.registerHelper('money', (n) => usd.format(n));
handlebars.registerHelper('percent', (n) => `${(n * 100).toFixed(1)}%`);
handlebars.registerHelper('trend', (n) => `${n >= 0 ? '▲' : '▼'} ${Math.abs(n * 100).toFixed(1)}%`);

// Deterministic figures: the same report every time the app starts.
function quarterlyFigures() {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const regions = ['North America', 'Latin America', 'UK and Ireland', 'Nordics', 'DACH', 'France and Benelux', 'Southern Europe', 'Middle East', 'Africa', 'India', 'Japan and Korea', 'Australia and NZ'];
  const lines = ['Retail', 'Wholesale', 'Online', 'Logistics', 'Services'];
  const products = ['Desk lamp', 'Office chair', 'Kettle', 'Standing desk', 'Bookshelf', 'Mug set', 'Wall clock', 'Wool rug', 'Desk fan', 'Monitor arm'];
  const owners = ['A. Okafor', 'M. Lindqvist', 'R. Iyer', 'S. Moreau', 'K. Tanaka', 'L. Alvarez'];
  const key = (words) => words.replace(/[^a-zA-Z ]/g, '').split(/\s+/).map((w, i) => (i ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join('');

  const units = {};
  for (const region of regions) {
    for (const line of lines) {
      const rows = products.slice(0, 6 + Math.floor(random() * 4)).map((name) => ({
        name,
        units: Math.floor(random() * 5000),
        revenue: Math.round(random() * 25000000) / 100,
        margin: random() * 0.6,
        change: random() * 0.4 - 0.2,
        backorder: random() < 0.15,
      }));
      const revenue = rows.reduce((sum, r) => sum + r.revenue, 0);
      const flagged = random() < 0.2;
      units[key(`${region} ${line}`)] = {
        revenue,
        units: rows.reduce((sum, r) => sum + r.units, 0),
        change: random() * 0.3 - 0.1,
        sites: 1 + Math.floor(random() * 40),
        orders: Math.floor(random() * 90000),
        averageOrder: Math.round(random() * 30000) / 100,
        margin: random() * 0.5,
        returns: random() * 0.08,
        onTime: 0.8 + random() * 0.2,
        headcount: Math.floor(random() * 400),
        plan: {
          revenue: revenue * (0.9 + random() * 0.2),
          revenueGap: random() * 0.2 - 0.1,
          orders: Math.floor(random() * 90000),
          ordersGap: random() * 0.2 - 0.1,
          margin: random() * 0.5,
          marginGap: random() * 0.1 - 0.05,
          headcount: Math.floor(random() * 400),
          headcountGap: random() * 0.1 - 0.05,
        },
        months: ['July', 'August', 'September'].map((label) => ({
          label,
          revenue: Math.round(random() * 8000000) / 100,
          orders: Math.floor(random() * 30000),
          margin: random() * 0.5,
        })),
        commentary: random() < 0.5 ? `Steady quarter; ${pick(products).toLowerCase()} demand drove most of the change.` : '',
        flagged,
        reason: flagged ? pick(['supplier delays', 'price competition', 'a warehouse move', 'a late product launch']) : '',
        owner: pick(owners),
        rows,
        notes: random() < 0.3 ? ['Figures exclude one-off freight refunds.', 'Restated after the August audit.'] : [],
      };
    }
  }
  return { title: 'Quarterly operations report', period: 'Q3 2026', currency: 'USD', sections: regions.length * lines.length, units };
}

const figures = quarterlyFigures();
// Compiling turns ~3 500 tags into a JavaScript function: slow, and the same
// every time. Do it once; a render is just calls of that function.
const renderReport = handlebars.compile(fs.readFileSync(TEMPLATE, 'utf8'));
// compile() only returns a wrapper: the template is parsed and compiled on
// its first call. Make that call now, before listening, so that no request
// (the first one after a deploy included) waits for the compile, and a
// broken template stops the app at start-up instead of failing a request.
renderReport({ ...figures, user: 'start-up' });
const app = express();

app.get('/report', (req, res) => {
  const user = String(req.query.user || '').trim();
  if (!user) return res.status(400).type('text').send('Say whose report: /report?user=<name>');
  res.type('html').send(renderReport({ ...figures, user }));
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});

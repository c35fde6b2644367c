'use strict';
// A static flame graph as an SVG file, drawn from folded stacks
// ("root;child;leaf count" lines, Brendan Gregg's format). Static, so it can
// be committed and shown on a page; 0x and Clinic.js make interactive ones.

const WIDTH = 1200;
const ROW = 17;
const FONT = 11;
// Frames narrower than this many pixels are left out: invisible slivers,
// whose deep stacks (module loading at start-up) would only add height.
const MIN_WIDTH = 2;

function escapeXml(text) {
  return String(text).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);
}

/** Folded stacks → tree of {name, value, children}. */
function toTree(folded) {
  const root = { name: 'all', value: 0, children: new Map() };
  for (const [stack, count] of folded) {
    root.value += count;
    let node = root;
    for (const frame of stack) {
      if (!node.children.has(frame)) node.children.set(frame, { name: frame, value: 0, children: new Map() });
      node = node.children.get(frame);
      node.value += count;
    }
  }
  return root;
}

/** Warm colours for JS, cooler for native and engine frames, as is customary. */
function colour(name, highlight) {
  if (highlight && highlight(name)) return 'rgb(120,170,240)';
  const hash = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  if (/^\(|\[|^node:/.test(name)) return `rgb(${200 + (hash % 40)},${180 + (hash % 50)},${90 + (hash % 40)})`;
  return `rgb(${220 + (hash % 35)},${90 + (hash % 90)},${40 + (hash % 40)})`;
}

/**
 * @param {Map<string[], number>|Array<[string[], number]>} folded stacks, root first
 * @param {object} [options]
 * @param {string} [options.title]
 * @param {(frame:string) => boolean} [options.highlight] frames to colour blue (the learner's code)
 * @returns {string} SVG source
 */
function flameGraphSvg(folded, { title = 'Flame graph', highlight } = {}) {
  const root = toTree(folded);
  const rects = [];
  let depthMax = 0;
  const walk = (node, x, depth) => {
    const width = (node.value / root.value) * WIDTH;
    if (width < MIN_WIDTH) return;
    rects.push({ node, x, depth, width });
    depthMax = Math.max(depthMax, depth);
    let childX = x;
    for (const child of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      walk(child, childX, depth + 1);
      childX += (child.value / root.value) * WIDTH;
    }
  };
  walk(root, 0, 0);
  const height = (depthMax + 1) * ROW + 40;
  const body = rects
    .map(({ node, x, depth, width }) => {
      const y = height - 10 - (depth + 1) * ROW;
      const pct = ((100 * node.value) / root.value).toFixed(1);
      const label = width > 30 ? escapeXml(node.name.slice(0, Math.floor(width / 6.5))) : '';
      return (
        `<g><title>${escapeXml(node.name)} (${node.value} samples, ${pct}%)</title>` +
        `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(width - 0.5, 0.1).toFixed(1)}" height="${ROW - 1}" rx="2" fill="${colour(node.name, highlight)}"/>` +
        (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + ROW - 5}">${label}</text>` : '') +
        '</g>'
      );
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="${FONT}">
<rect width="100%" height="100%" fill="#fdfdfb"/>
<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="15">${escapeXml(title)}</text>
${body}
</svg>
`;
}

module.exports = { flameGraphSvg };

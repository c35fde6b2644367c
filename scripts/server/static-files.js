'use strict';
// Serves the built site from disk: the files Docusaurus wrote, with /labs/x
// resolved to /labs/x/index.html and anything outside the folders refused.
// It serves from several folders, first match wins: site/build, then
// site/static, whose files Docusaurus copies into the build's root (the
// workbook commits its build without that second copy of the captures).

const fs = require('node:fs');
const path = require('node:path');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.xml': 'application/xml',
  '.map': 'application/json',
};

function resolveFile(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  const target = path.resolve(root, `.${path.posix.normalize(decoded)}`);
  if (target !== root && !target.startsWith(root + path.sep)) return null;
  for (const candidate of [target, path.join(target, 'index.html'), `${target}.html`]) {
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // try the next form
    }
  }
  return null;
}

/** The file a URL path names in the first of `roots` that has it, else null. */
function resolveIn(roots, urlPath) {
  for (const root of roots) {
    const file = resolveFile(root, urlPath);
    if (file) return file;
  }
  return null;
}

/**
 * @param {string|string[]} roots the folders to serve, first match wins
 */
function serveStatic(roots, req, res) {
  const list = [].concat(roots).map((root) => path.resolve(root));
  const file = resolveIn(list, req.url) || resolveIn(list, '/404.html');
  if (!file) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
    return;
  }
  const status = file.endsWith(`${path.sep}404.html`) && !req.url.startsWith('/404') ? 404 : 200;
  res.writeHead(status, {
    'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
    'cache-control': 'no-cache',
  });
  if (req.method === 'HEAD') return res.end();
  fs.createReadStream(file).pipe(res);
}

module.exports = { serveStatic };

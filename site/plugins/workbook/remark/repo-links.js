'use strict';
// The walkthroughs are written to read well on GitHub, so they link to files
// relatively: [app.js](app.js), [the solution](../../solutions/<slug>/app.js).
// On the site those files are not pages. This plugin points each such link
// at the place on the site that shows the file (the lab page's files
// section), and turns links to files the site does not show into plain text,
// so a walkthrough can never break the build by linking to a real file.
// Links to files that do not exist are left alone: the build reports them.

const path = require('node:path');
const { ROOT, labs, repoPath, isFile, hasWalkthrough } = require('../repo');
const { walk } = require('./walk');

const labPage = (slug) => `/labs/${slug}`;

/** Where on the site a repository path is shown, or null when nowhere. */
function siteTarget(relPath, hash) {
  const parts = relPath.split('/');
  const lab = labs.find((l) => l.slug === parts[1]);
  if (relPath === 'README.md') return `/${hash}`;
  // A lab without a walkthrough yet has no page: its links become plain text.
  if (parts[0] === 'labs' && lab) {
    if (!hasWalkthrough(lab)) return null;
    if (parts.length === 2 || parts[2] === 'README.md') return labPage(lab.slug) + hash;
    // The check's definition is shown in the files section; its other files
    // (margins, verdict test, trainers' notes) nowhere.
    if (relPath === repoPath(lab.checkModule)) return `${labPage(lab.slug)}#check`;
    if (parts[2] === 'check') return null;
    return `${labPage(lab.slug)}#starter`;
  }
  if (parts[0] === 'solutions' && lab) return hasWalkthrough(lab) ? `${labPage(lab.slug)}#solution` : null;
  const doc = /^site\/docs\/([\w-]+)\.mdx?$/.exec(relPath);
  if (doc) return `/guide/${doc[1]}${hash}`;
  return null;
}

function repoLinks() {
  return (tree, file) => {
    if (!file.path) return;
    const here = path.dirname(file.path);
    walk(tree, null, (node, index, parent) => {
      if ((node.type !== 'link' && node.type !== 'definition') || !node.url) return;
      if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(node.url)) return; // absolute, anchor or site path
      const [pathname, ...rest] = node.url.split('#');
      const hash = rest.length ? `#${rest.join('#')}` : '';
      const absolute = path.resolve(here, decodeURIComponent(pathname));
      if (!absolute.startsWith(ROOT + path.sep) && absolute !== ROOT) return;
      const rel = repoPath(absolute);
      const exists = isFile(absolute) || isFile(path.join(absolute, 'README.md'));
      // A lab whose walkthrough is not written yet: plain text until it is.
      const unwrittenLab = labs.some((l) => rel === `labs/${l.slug}/README.md`);
      if (!exists && !unwrittenLab) return;
      const target = siteTarget(rel, hash);
      if (target) {
        node.url = target;
      } else if (node.type === 'link' && parent) {
        // Shown nowhere on the site: keep the words, drop the link.
        parent.children.splice(parent.children.indexOf(node), 1, ...node.children);
      }
    });
  };
}

module.exports = repoLinks;

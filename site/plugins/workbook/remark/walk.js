'use strict';
// A depth-first walk over an mdast tree: enough for our few remark plugins,
// without one more dependency for it.

/** Calls `visit(node, index, parent)` for every node of `type` (or every node). */
function walk(tree, type, visit) {
  const step = (node, index, parent) => {
    if (!type || node.type === type) visit(node, index, parent);
    if (Array.isArray(node.children)) {
      // Copy: a visitor may replace the node it was given.
      [...node.children].forEach((child, i) => step(child, i, node));
    }
  };
  step(tree, null, null);
}

/** The plain text of a node (a heading's words, a link's label). */
function textOf(node) {
  if (typeof node.value === 'string') return node.value;
  return (node.children || []).map(textOf).join('');
}

module.exports = { walk, textOf };

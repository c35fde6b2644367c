'use strict';
// NODE_OPTIONS, written so Node reads it back as meant on every OS.

/**
 * `file` as one NODE_OPTIONS argument. Node splits NODE_OPTIONS on spaces
 * outside double quotes, and inside them a backslash escapes the next
 * character (ParseNodeOptionsEnvVar in src/node_options.cc), so a Windows
 * path's backslashes and any quote are escaped, or C:\Users\... would
 * reach Node as C:Users...
 */
function quoteForNodeOptions(file) {
  return `"${file.replace(/[\\"]/g, '\\$&')}"`;
}

/** `nodeOptions` (the current NODE_OPTIONS, if any) plus a preload of `file`. */
function withPreload(nodeOptions, file) {
  return `${nodeOptions || ''} --require ${quoteForNodeOptions(file)}`.trim();
}

module.exports = { quoteForNodeOptions, withPreload };

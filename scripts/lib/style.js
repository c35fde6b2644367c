'use strict';
// Colours for terminal output, from Node's own util.styleText, switched off
// when the output is not a terminal or NO_COLOR is set (Node 20's styleText
// does not check either itself).

const { styleText } = require('node:util');

function colourEnabled(stream = process.stdout) {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY);
}

function paint(format, text, stream) {
  return colourEnabled(stream) ? styleText(format, text) : text;
}

module.exports = {
  colourEnabled,
  paint,
  bold: (t, s) => paint('bold', t, s),
  dim: (t, s) => paint('dim', t, s),
  green: (t, s) => paint('green', t, s),
  red: (t, s) => paint('red', t, s),
  yellow: (t, s) => paint('yellow', t, s),
  cyan: (t, s) => paint('cyan', t, s),
};

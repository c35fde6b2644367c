#!/usr/bin/env node
'use strict';
// `npx workbook …` runs this file through node_modules/.bin/workbook, which
// npm links (with its .cmd and .ps1 shims on Windows) when it installs this
// folder as the root package's `file:` dependency. The CLI itself is
// scripts/workbook.js.
require('../workbook.js');

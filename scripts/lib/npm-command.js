'use strict';
// How to run npm (or npx) as a child process, the same way on every OS.
//
// Under `npm run …`, npm names its own JavaScript entry in npm_execpath:
// running that file with this Node needs no shell and no PATH lookup, and is
// the npm the user just typed. Otherwise the command is looked up on PATH; on
// Windows that is npm.cmd, a batch file, which Node starts only through a
// shell (CVE-2024-27980), so each argument is quoted for cmd.exe.

const fs = require('node:fs');
const path = require('node:path');

/** An argument as cmd.exe passes it on whole: quoted when it holds a space or a character cmd treats specially. */
function quoteForCmd(arg) {
  const text = String(arg);
  return /^[\w@+=:,./\\-]+$/.test(text) ? text : `"${text.replace(/"/g, '""')}"`;
}

/**
 * @param {'npm'|'npx'} tool
 * @param {string[]} args
 * @param {object} [context] for tests: the environment, platform and file check to assume
 * @returns {{command:string, args:string[], shell:boolean}} what to pass to child_process.spawn
 */
function npmCommand(tool, args, { env = process.env, platform = process.platform, exists = fs.existsSync, execPath = process.execPath } = {}) {
  const npmCli = env.npm_execpath;
  if (npmCli && /npm-cli\.js$/.test(npmCli)) {
    const cli = tool === 'npm' ? npmCli : path.join(path.dirname(npmCli), 'npx-cli.js');
    if (exists(cli)) return { command: execPath, args: [cli, ...args], shell: false };
  }
  if (platform === 'win32') return { command: `${tool}.cmd`, args: args.map(quoteForCmd), shell: true };
  return { command: tool, args, shell: false };
}

module.exports = { npmCommand, quoteForCmd };

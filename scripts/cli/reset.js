'use strict';
const { relative } = require('../lib/labs');
const { resetLab } = require('../lib/restore-starter');
const { requireLab } = require('./options');

module.exports = {
  usage: 'npx workbook reset <lab>',
  help: [
    "Restores the lab's files as the workbook ships them. Any file you changed is",
    'first copied to .workbook/backups/, and the path is printed: nothing is lost.',
  ],
  options: {},
  async run({ positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const outcome = resetLab(lab);
    if (outcome.error) {
      console.error(`Nothing was changed: ${outcome.error}.`);
      return 1;
    }
    if (outcome.restored.length === 0) {
      console.log(`Lab ${lab.id} is already as shipped; nothing to do.`);
      return 0;
    }
    for (const file of outcome.restored) console.log(`Restored ${relative(file)}.`);
    if (outcome.backupDir) console.log(`Your version is kept in ${relative(outcome.backupDir)}/`);
    return 0;
  },
};

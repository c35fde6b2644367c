'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { relative } = require('../lib/labs');
const { WORK_DIR, labFiles, isShipped, shippedContent } = require('../lib/shipped');
const { requireLab } = require('./lab-arg');

module.exports = {
  summary: 'put back the shipped starter (your version is kept as a backup)',
  usage: 'npx workbook reset <lab>',
  help: [
    'Restores the lab\'s files as the workbook ships them. Any file you changed is',
    'first copied to .workbook/backups/, and the path is printed: nothing is lost.',
  ],
  options: {},
  async run({ positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const changed = labFiles(lab).filter((file) => !isShipped(lab, file));
    if (changed.length === 0) {
      console.log(`Lab ${lab.id} is already as shipped; nothing to do.`);
      return 0;
    }
    // Recover everything first, so a failure leaves the learner's files untouched.
    const restored = changed.map((file) => ({ file, ...shippedContent(lab, file) }));
    const missing = restored.find((r) => r.error);
    if (missing) {
      console.error(`Nothing was changed: ${missing.error}.`);
      return 1;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const backupDir = path.join(WORK_DIR, 'backups', `${lab.slug}-${stamp}`);
    for (const { file, content } of restored) {
      const current = path.join(lab.dir, file);
      if (fs.existsSync(current)) {
        const backup = path.join(backupDir, file);
        fs.mkdirSync(path.dirname(backup), { recursive: true });
        fs.copyFileSync(current, backup);
      }
      fs.mkdirSync(path.dirname(current), { recursive: true });
      fs.writeFileSync(current, content);
      console.log(`Restored ${relative(current)}.`);
    }
    console.log(`Your version is kept in ${relative(backupDir)}/`);
    return 0;
  },
};

// Runs the Docusaurus CLI with its update check switched off: the site's
// tools make no request to the network of their own (the CLI's update
// notifier would ask the npm registry about new Docusaurus versions).
// Setting the variable here, not in package.json, works in every shell,
// Windows' cmd included.
process.env.NO_UPDATE_NOTIFIER = '1';
await import('@docusaurus/core/bin/docusaurus.mjs');

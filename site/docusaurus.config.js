'use strict';
// The workbook site. Built without a preset so that only what is used gets
// installed (preset-classic would pull in Algolia search, which this site
// does not use and whose packages the registry here lacks).
//
// Lab pages are the lab READMEs themselves (../labs/*/README.md), read as
// CommonMark so they render as they do on GitHub. The remark plugins in
// plugins/workbook/remark add what only a site can: code blocks checked
// against the real files, links that land on the page's files section,
// collapsed hints, and the reference fix's code folded in from solutions/
// where the README has only a solution-code directive.

const repoLinks = require('./plugins/workbook/remark/repo-links');
const codeExcerpts = require('./plugins/workbook/remark/code-excerpts');
const labReadme = require('./plugins/workbook/remark/lab-readme');
const solutionCode = require('./plugins/workbook/remark/solution-code');

// Set when the site is published below a path, e.g. "/workbook/" on GitHub Pages.
const baseUrl = process.env.WORKBOOK_SITE_BASE_URL || '/';

const remark = {
  // solutionCode after codeExcerpts: the blocks it adds are read from their
  // files already, and numbered.
  beforeDefaultRemarkPlugins: [repoLinks, codeExcerpts, solutionCode],
  remarkPlugins: [labReadme],
};

/** @type {import('@docusaurus/types').Config} */
module.exports = {
  title: 'Node.js profiling workbook',
  tagline: 'Measure it, profile it, fix it, prove it.',
  url: 'http://127.0.0.1',
  baseUrl,
  favicon: 'img/favicon.svg',
  onBrokenLinks: 'throw',
  onBrokenAnchors: 'throw',
  onDuplicateRoutes: 'throw',
  markdown: {
    // .md is CommonMark (as on GitHub), .mdx is MDX.
    format: 'detect',
    hooks: { onBrokenMarkdownLinks: 'throw' },
  },
  future: {
    v4: true,
    // Rspack and SWC: a cold build in ~16 s instead of ~70 s on 2 cores.
    // Everything `faster: true` turns on but Rspack's persistent cache: it
    // keys a page's compiled MDX on the page's own file, while our remark
    // plugins read other files (the code a walkthrough quotes, the shipped
    // starters), so a cached page would keep quoting code that changed or
    // was deleted, and a build would pass that must fail. Builds are always
    // complete: about 7 s here.
    faster: {
      swcJsLoader: true,
      swcJsMinimizer: true,
      swcHtmlMinimizer: true,
      lightningCssMinimizer: true,
      mdxCrossCompilerCache: true,
      rspackBundler: true,
      rspackPersistentCache: false,
      ssgWorkerThreads: true,
      gitEagerVcs: true,
    },
    // No "last updated" lookups in git: the site shows none.
    experimental_vcs: 'disabled',
  },
  i18n: { defaultLocale: 'en', locales: ['en'] },
  noIndex: true,
  // The banner for a wrong baseUrl links to docusaurus.io; the site links nowhere outside itself.
  baseUrlIssueBanner: false,
  plugins: [
    './plugins/workbook',
    [
      '@docusaurus/plugin-content-docs',
      {
        id: 'default',
        path: '../labs',
        include: ['*/README.md'],
        routeBasePath: 'labs',
        sidebarPath: './sidebars.js',
        // A lab's folder name ("NN-name") is its slug, not an ordering prefix to strip.
        numberPrefixParser: false,
        breadcrumbs: false,
        ...remark,
      },
    ],
    [
      '@docusaurus/plugin-content-docs',
      {
        id: 'guide',
        path: 'docs',
        routeBasePath: 'guide',
        sidebarPath: './sidebars.guide.js',
        breadcrumbs: false,
        ...remark,
      },
    ],
    ['@docusaurus/plugin-content-pages', {}],
  ],
  themes: [['@docusaurus/theme-classic', { customCss: './src/css/custom.css' }]],
  themeConfig: {
    colorMode: { respectPrefersColorScheme: true },
    docs: { sidebar: { hideable: true } },
    navbar: {
      title: 'Node.js profiling workbook',
      logo: { alt: '', src: 'img/logo.svg' },
      items: [
        { type: 'docSidebar', sidebarId: 'labs', label: 'Labs', position: 'left' },
        // Plain links: as "doc" items both would light up together (same sidebar).
        { to: '/guide/how-checks-measure', label: 'How the checks measure', position: 'left' },
        { to: '/guide/trainers', label: 'For trainers', position: 'left' },
      ],
    },
    footer: {
      style: 'dark',
      copyright: 'Node.js profiling workbook. Every page is built from the workbook\'s own files: the walkthroughs, the apps, the checks.',
    },
    prism: {
      // markup-templating first: the handlebars grammar builds on it.
      additionalLanguages: ['bash', 'json', 'powershell', 'markup-templating', 'handlebars'],
    },
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 2 },
  },
};

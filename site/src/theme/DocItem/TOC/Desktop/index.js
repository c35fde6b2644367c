// The table of contents, plus the lab panel's sections on lab pages.
import React from 'react';
import { ThemeClassNames } from '@docusaurus/theme-common';
import TOC from '@theme/TOC';
import { useDocToc } from '../../../lab-doc';

export default function DocItemTOCDesktop() {
  return <TOC {...useDocToc()} className={ThemeClassNames.docs.docTocDesktop} />;
}

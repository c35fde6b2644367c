// The table of contents, plus the lab panel's sections on lab pages.
import React from 'react';
import { ThemeClassNames } from '@docusaurus/theme-common';
import { useDoc } from '@docusaurus/plugin-content-docs/client';
import TOC from '@theme/TOC';
import { labTocEntries } from '../../../../components/LabPanel';
import { useLabOfDoc } from '../../../lab-doc';

export default function DocItemTOCDesktop() {
  const { toc, frontMatter } = useDoc();
  const lab = useLabOfDoc();
  return (
    <TOC
      toc={lab ? [...toc, ...labTocEntries(lab)] : toc}
      minHeadingLevel={frontMatter.toc_min_heading_level}
      maxHeadingLevel={frontMatter.toc_max_heading_level}
      className={ThemeClassNames.docs.docTocDesktop}
    />
  );
}

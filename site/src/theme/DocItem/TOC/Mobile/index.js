// The collapsible table of contents on small screens, plus the lab panel's sections.
import React from 'react';
import { ThemeClassNames } from '@docusaurus/theme-common';
import { useDoc } from '@docusaurus/plugin-content-docs/client';
import TOCCollapsible from '@theme/TOCCollapsible';
import { labTocEntries } from '../../../../components/LabPanel';
import { useLabOfDoc } from '../../../lab-doc';
import styles from './styles.module.css';

export default function DocItemTOCMobile() {
  const { toc, frontMatter } = useDoc();
  const lab = useLabOfDoc();
  return (
    <TOCCollapsible
      toc={lab ? [...toc, ...labTocEntries(lab)] : toc}
      minHeadingLevel={frontMatter.toc_min_heading_level}
      maxHeadingLevel={frontMatter.toc_max_heading_level}
      className={`${ThemeClassNames.docs.docTocMobile} ${styles.tocMobile}`}
    />
  );
}

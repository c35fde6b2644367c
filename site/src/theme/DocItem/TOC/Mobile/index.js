// The collapsible table of contents on small screens, plus the lab panel's sections.
import React from 'react';
import { ThemeClassNames } from '@docusaurus/theme-common';
import TOCCollapsible from '@theme/TOCCollapsible';
import { useDocToc } from '../../../lab-doc';
import styles from './styles.module.css';

export default function DocItemTOCMobile() {
  return <TOCCollapsible {...useDocToc()} className={`${ThemeClassNames.docs.docTocMobile} ${styles.tocMobile}`} />;
}

// Which lab, if any, the current doc page is: lab pages are the docs of the
// "default" docs plugin, with ids like "<slug>/README".
import { useDoc } from '@docusaurus/plugin-content-docs/client';
import { labTocEntries } from '../components/LabPanel';
import { useWorkbook } from '../lib/workbook';

export function useLabOfDoc() {
  const { metadata } = useDoc();
  const { labs } = useWorkbook();
  return labs.find((lab) => metadata.id === `${lab.slug}/README`) || null;
}

/**
 * The page's table of contents, plus the lab panel's sections on lab pages:
 * the props the Desktop and Mobile TOC swizzles pass on.
 */
export function useDocToc() {
  const { toc, frontMatter } = useDoc();
  const lab = useLabOfDoc();
  return {
    toc: lab ? [...toc, ...labTocEntries(lab)] : toc,
    minHeadingLevel: frontMatter.toc_min_heading_level,
    maxHeadingLevel: frontMatter.toc_max_heading_level,
  };
}

// Which lab, if any, the current doc page is: lab pages are the docs of the
// "default" docs plugin, with ids like "01-sync-pbkdf2/README".
import { useDoc } from '@docusaurus/plugin-content-docs/client';
import { useWorkbook } from '../lib/workbook';

export function useLabOfDoc() {
  const { metadata } = useDoc();
  const { labs } = useWorkbook();
  return labs.find((lab) => metadata.id === `${lab.slug}/README`) || null;
}

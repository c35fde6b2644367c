// The workbook's data as the plugin (plugins/workbook) loaded it at build time.
import { usePluginData } from '@docusaurus/useGlobalData';

export function useWorkbook() {
  return usePluginData('workbook');
}

/** One lab by id (the two digits of its slug) or slug (its folder name), or undefined. */
export function useLab(idOrSlug) {
  return useWorkbook().labs.find((lab) => lab.id === idOrSlug || lab.slug === idOrSlug);
}

// The workbook's data as the plugin (plugins/workbook) loaded it at build time.
import { usePluginData } from '@docusaurus/useGlobalData';

export function useWorkbook() {
  return usePluginData('workbook');
}

/** One lab by slug, or undefined. */
export function useLab(slug) {
  return useWorkbook().labs.find((lab) => lab.slug === slug);
}

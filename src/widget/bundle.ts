import { buildBundle, builtOnce, sourcePath, type Bundle } from '../http/bundle.ts';

/**
 * Bundles the widget into one minified script (an IIFE: no globals but the custom element). For
 * browsers of 2022 on: its dialogs need `<dialog>` (Safari 15.4), and their class fields and private
 * methods then need no down-levelled helpers (a tenth of the script).
 */
export function buildWidget(): Promise<Bundle> {
  return buildBundle(sourcePath(import.meta.url, 'widget/client/main.ts'), { target: ['es2022'] });
}

export const widgetBundle = builtOnce(buildWidget);

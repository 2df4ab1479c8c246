import { buildBundle, builtOnce, sourcePath, type Bundle } from '../http/bundle.ts';

/** Bundles the widget into one minified script (an IIFE: no globals but the custom element). */
export function buildWidget(): Promise<Bundle> {
  return buildBundle(sourcePath(import.meta.url, 'widget/client/main.ts'));
}

export const widgetBundle = builtOnce(buildWidget);

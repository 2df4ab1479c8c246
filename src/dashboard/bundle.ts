import { buildBundle, builtOnce, sourcePath, type Bundle } from '../http/bundle.ts';

/** The dashboard's script: Preact and the views, one IIFE. */
export function buildDashboardScript(): Promise<Bundle> {
  return buildBundle(sourcePath(import.meta.url, 'dashboard/app/main.tsx'), { jsx: 'automatic', jsxImportSource: 'preact' });
}

/** The dashboard's stylesheet (a file of its own: the Content-Security-Policy allows no inline style). */
export function buildDashboardStyles(): Promise<Bundle> {
  return buildBundle(sourcePath(import.meta.url, 'dashboard/app/styles.css'), { format: undefined });
}

export const dashboardScript = builtOnce(buildDashboardScript);
export const dashboardStyles = builtOnce(buildDashboardStyles);

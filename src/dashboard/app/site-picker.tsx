import { t } from './i18n.ts';
import { navigate, withQuery } from './router.ts';
import type { Site } from './session.ts';

/** Chooses the site a per-site view shows; the choice is part of the URL (?site=). */
export function SitePicker(props: { sites: Site[]; current: Site }) {
  if (props.sites.length < 2) return null;
  return (
    <label class="site-picker">
      {t('sitePicker.site')}
      <select value={props.current.id} onChange={(event) => navigate(withQuery({ site: event.currentTarget.value }))}>
        {props.sites.map((site) => (
          <option key={site.id} value={site.id}>{site.name}</option>
        ))}
      </select>
    </label>
  );
}

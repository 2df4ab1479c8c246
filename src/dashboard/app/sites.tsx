export function SitesView() {
  return <p>Coming.</p>;
}
export function SiteSettingsView(_props: { siteId: string }) {
  return <p>Coming.</p>;
}

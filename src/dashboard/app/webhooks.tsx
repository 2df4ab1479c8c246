export function WebhooksView(_props: { url: URL }) {
  return <p>Coming.</p>;
}

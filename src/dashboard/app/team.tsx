export function TeamView(_props: { url: URL }) {
  return <p>Coming.</p>;
}

export function OverviewView(_props: { url: URL }) {
  return <p>Coming.</p>;
}

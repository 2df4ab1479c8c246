export function KeysView() {
  return <p>Coming.</p>;
}

/// <reference lib="dom" />
import { render } from 'preact';
import { App } from './shell.tsx';

const root = document.getElementById('app')!;
// The page's "Loading…" line goes: the first view drawn may be one (a sign-in page) that does not reuse it.
root.replaceChildren();
render(<App />, root);

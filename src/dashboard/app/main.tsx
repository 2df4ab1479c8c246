/// <reference lib="dom" />
import { render } from 'preact';
import { App } from './shell.tsx';

render(<App />, document.getElementById('app')!);

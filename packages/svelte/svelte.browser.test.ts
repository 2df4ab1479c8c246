import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { frameworkTests } from '../../test/frameworks.ts';

frameworkTests('svelte', fileURLToPath(new URL('test-app', import.meta.url)), 'main.js', [svelte()]);

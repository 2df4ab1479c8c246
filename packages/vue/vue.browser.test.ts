import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { frameworkTests } from '../../test/frameworks.ts';

frameworkTests('vue', fileURLToPath(new URL('test-app', import.meta.url)), 'main.js', [vue()]);

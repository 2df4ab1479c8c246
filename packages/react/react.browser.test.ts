import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { frameworkTests } from '../../test/frameworks.ts';

frameworkTests('react', fileURLToPath(new URL('test-app', import.meta.url)), 'main.jsx', [react()]);

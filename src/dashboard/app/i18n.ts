import english from '../locales/en.json' with { type: 'json' };
import { formatMessage, type Values } from '../../i18n/runtime.ts';
export type MessageKey = keyof typeof english;
export function t(key: MessageKey, values?: Values): string { return formatMessage('en', (english as Record<string, string>)[key], values); }

'use client';
import { createElement, useEffect } from 'react';
import { commentsAttributes, countAttributes, loadParley } from '@parley/embed';

/** `<parley-comments>`: a changed prop changes the element's attribute, and the element reloads itself. */
export function ParleyComments({ server, ...props }) {
  useEffect(() => void loadParley(server, 'parley-comments'), [server]);
  return createElement('parley-comments', commentsAttributes(props));
}

/** `<parley-count>`: "12 comments" for one thread; every count of the page comes in one request. */
export function ParleyCount({ server, ...props }) {
  useEffect(() => void loadParley(server, 'parley-count'), [server]);
  return createElement('parley-count', countAttributes(props));
}

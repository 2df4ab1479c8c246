import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';

/** A schema.org item as microdata gives it: its type and its properties, each a list of values. */
export interface Item {
  type: string | undefined;
  properties: Record<string, Array<string | Item>>;
}

/**
 * Reads the top-level microdata items of an HTML document (WHATWG microdata, the parts schema.org
 * uses: itemscope, itemtype, itemprop; values from content, datetime, href or the text), as a
 * crawler's parser does: a `<template>`'s content is read like any other markup.
 */
export function readMicrodata(html: string): Item[] {
  const items: Item[] = [];
  const walk = (nodes: ChildNode[], into: Item | null) => {
    for (const node of nodes) {
      if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
      const element = node as Element;
      const prop = element.attribs.itemprop;
      if (element.attribs.itemscope !== undefined) {
        const item: Item = { type: element.attribs.itemtype, properties: {} };
        if (prop && into) (into.properties[prop] ??= []).push(item);
        else if (!prop) items.push(item);
        walk(element.children, item);
        continue;
      }
      if (prop && into) (into.properties[prop] ??= []).push(valueOf(element));
      walk(element.children, into);
    }
  };
  walk(parseDocument(html).children, null);
  return items;
}

function valueOf(element: Element): string {
  const { attribs } = element;
  if (element.name === 'meta') return attribs.content ?? '';
  if (element.name === 'time') return attribs.datetime ?? textOf(element.children);
  if (element.name === 'link' || element.name === 'a') return attribs.href ?? '';
  return textOf(element.children);
}

function textOf(nodes: ChildNode[]): string {
  return nodes.map((node) => (node.type === 'text' ? node.data : 'children' in node ? textOf(node.children as ChildNode[]) : '')).join('');
}

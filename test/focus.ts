/**
 * Where the keyboard focus is in a browser test, and whether a reader can see it: the focused
 * element (inside shadow roots too), the name a reader hears, and the contrast of its focus ring.
 */
import type { Page } from 'playwright-core';

export interface Focus {
  /** tag:name, the name as a reader hears it (aria-label, its label, or its text). */
  what: string;
  /** The focused element is inside a shadow root (a widget's) rather than the page's own DOM. */
  inShadow: boolean;
  /** Inside an open modal dialog. */
  inDialog: boolean;
  /** The outline's (or, without one, the box-shadow's) contrast with the background behind it; 0 when there is neither. */
  contrast: number;
  ring: string;
  /** No part of it shows: the middle of its box and a point near each corner all hit something else, a sticky header say (WCAG 2.4.11). */
  obscured: boolean;
  /** data-index and data-id, where the element has them (the queue's cards). */
  index: string | null;
  id: string | null;
}

/** The element with the keyboard focus and how visible its focus is (WCAG 2.4.7 asks for visible, 1.4.11 for 3:1). */
export const focusOf = (page: Page): Promise<Focus> =>
  page.evaluate(() => {
    let element = document.activeElement as HTMLElement | null;
    let inShadow = false;
    while (element?.shadowRoot?.activeElement) {
      element = element.shadowRoot.activeElement as HTMLElement;
      inShadow = true;
    }
    if (!element || element === document.body) return { what: '', inShadow, inDialog: false, contrast: 0, ring: 'none', obscured: false, index: null, id: null };
    const root = element.getRootNode() as ShadowRoot | Document;
    const label = element.id ? root.querySelector(`label[for="${element.id}"]`)?.textContent : (element.closest('label')?.textContent ?? null);
    const name = element.getAttribute('aria-label') ?? label ?? element.textContent ?? '';
    const style = getComputedStyle(element);
    const rgb = (colour: string) => (colour.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]) => {
      const linear = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const up = (node: Element): Element | null => node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null);
    // The background the ring is drawn on: the nearest painted one, through shadow roots to the page.
    let behind = up(element);
    let background = [255, 255, 255];
    while (behind) {
      const colour = rgb(getComputedStyle(behind).backgroundColor);
      if (colour.length === 3 || (colour.length === 4 && colour[3] > 0)) {
        background = colour.slice(0, 3);
        break;
      }
      behind = up(behind);
    }
    const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1;
    const ring = outlined ? style.outlineColor : style.boxShadow !== 'none' ? style.boxShadow : null;
    const [l1, l2] = ring ? [luminance(rgb(ring).slice(0, 3)), luminance(background)].sort((a, b) => b - a) : [0, 0];
    const box = element.getBoundingClientRect();
    const points = [[box.left + box.width / 2, box.top + box.height / 2], [box.left + 2, box.top + 2], [box.right - 2, box.top + 2], [box.left + 2, box.bottom - 2], [box.right - 2, box.bottom - 2]];
    const shows = ([x, y]: number[]) => {
      const hit = root.elementFromPoint(x, y);
      return hit !== null && (hit === element || element.contains(hit));
    };
    return {
      obscured: box.width > 0 && !points.some(shows),
      what: `${element.tagName.toLowerCase()}:${name.trim().replace(/\s+/g, ' ')}`,
      inShadow,
      inDialog: element.closest('dialog[open]') !== null,
      contrast: ring ? (l1 + 0.05) / (l2 + 0.05) : 0,
      ring: outlined ? `${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}` : style.boxShadow,
      index: element.dataset.index ?? null,
      id: element.dataset.id ?? null,
    };
  });

const SVG = 'http://www.w3.org/2000/svg';

/** FNV-1a: a small, stable hash; the picture needs spread, not secrecy. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return value >>> 0;
}

/**
 * A picture for a user without one, drawn here from their id (no request leaves the page): a 5×5
 * grid mirrored left to right, its 15 cells and its hue taken from the id's hash, so the same user
 * looks the same everywhere.
 */
export function identicon(userId: string, size: number): SVGSVGElement {
  const bits = hash(userId);
  const svg = document.createElementNS(SVG, 'svg');
  for (const [name, value] of Object.entries({ viewBox: '0 0 5 5', width: size, height: size, 'aria-hidden': 'true', class: 'avatar' })) svg.setAttribute(name, String(value));
  const background = document.createElementNS(SVG, 'rect');
  for (const [name, value] of Object.entries({ width: 5, height: 5, fill: `hsl(${bits % 360} 45% 92%)` })) background.setAttribute(name, String(value));
  const cells = document.createElementNS(SVG, 'path');
  let d = '';
  for (let cell = 0; cell < 15; cell++) {
    if (((bits >>> (cell + 9)) & 1) === 0 && cell !== 7) continue;
    const row = cell % 5;
    const column = Math.floor(cell / 5);
    d += `M${column} ${row}h1v1h-1z`;
    if (column < 2) d += `M${4 - column} ${row}h1v1h-1z`;
  }
  cells.setAttribute('d', d);
  cells.setAttribute('fill', `hsl(${bits % 360} 55% 42%)`);
  svg.append(background, cells);
  return svg;
}

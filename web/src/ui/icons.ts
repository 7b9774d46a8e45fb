// The page's icons as inline SVG: they draw the same on every device, with or without an emoji or
// symbol font (a 🔔 or ⌨ glyph is an empty box where no font has it). Each is decorative: the
// button that holds it carries the accessible name.

const PATHS = {
  bell: 'M8 2.2a3.8 3.8 0 0 0-3.8 3.8v2.6L3 10.8v.9h10v-.9l-1.2-2.2V6A3.8 3.8 0 0 0 8 2.2zM6.4 12.6a1.6 1.6 0 0 0 3.2 0z',
  keyboard: 'M1.5 4h13v8h-13zM3 5.8h1.4v1.4H3zm2.4 0h1.4v1.4H5.4zm2.4 0h1.4v1.4H7.8zm2.4 0h1.4v1.4h-1.4zm2.4 0H13v1.4h-.4zM3 8.2h1.4v1.4H3zm9.2 0H13v1.4h-.8zM5.4 10.2h5.2v1H5.4z',
  menu: 'M2 3.5h12v1.6H2zm0 3.7h12v1.6H2zm0 3.7h12v1.6H2z',
  pencil: 'M11.2 2.2l2.6 2.6-7.9 7.9-3.2.6.6-3.2zM10.4 4.6L4.8 10.2l1 1 5.6-5.6z',
  close: 'M4.2 3L8 6.8 11.8 3 13 4.2 9.2 8l3.8 3.8-1.2 1.2L8 9.2 4.2 13 3 11.8 6.8 8 3 4.2z',
  more: 'M2.5 6.6h2.8v2.8H2.5zm4.1 0h2.8v2.8H6.6zm4.1 0h2.8v2.8h-2.8z',
} as const;

export type IconName = keyof typeof PATHS;

export function icon(name: IconName): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '16');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.classList.add('icon-svg');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', PATHS[name]);
  path.setAttribute('fill', 'currentColor');
  path.setAttribute('fill-rule', 'evenodd');
  svg.append(path);
  return svg;
}

/**
 * The page's favicon: limpet's mark, with the number of sessions that need a person on a badge
 * (none at 0). An SVG data URL, so it needs no file and no canvas.
 */
export function faviconUrl(count: number): string {
  const badge = count > 0
    ? `<circle cx="23" cy="9" r="9" fill="#e06c75"/><text x="23" y="13.5" font-family="sans-serif" font-size="${count > 9 ? 10 : 13}" `
      + `font-weight="700" text-anchor="middle" fill="#fff">${count > 99 ? '99' : count}</text>`
    : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M4 26 16 6l12 20z" fill="#f0c674"/>${badge}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

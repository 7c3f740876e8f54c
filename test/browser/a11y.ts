/**
 * Accessibility checks the browser tests run in a page: text contrast (WCAG 2.1 AA, computed in the page) and
 * form controls without an accessible name.
 */
import type { Page } from 'playwright-core';

/** WCAG 2.1 contrast of every visible text element against its nearest opaque background; returns the failures. */
export function contrastFailures(page: Page) {
  return page.evaluate(() => {
    type Rgba = { r: number; g: number; b: number; a: number };
    const parse = (colour: string): Rgba => {
      const parts = (colour.match(/rgba?\(([^)]+)\)/)?.[1] ?? '0 0 0 0').split(/[\s,/]+/).filter(Boolean).map(Number);
      return { r: parts[0]!, g: parts[1]!, b: parts[2]!, a: parts.length > 3 ? parts[3]! : 1 };
    };
    const channel = (value: number) => {
      const v = value / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    const luminance = (c: Rgba) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    const background = (element: Element): Rgba => {
      for (let current: Element | null = element; current; current = current.parentElement) {
        const colour = parse(getComputedStyle(current).backgroundColor);
        if (colour.a > 0.99) return colour;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    const failures: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      if (element.closest('svg') || !(element instanceof HTMLElement)) continue;
      const hasText = [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim());
      if (!hasText || element.getClientRects().length === 0) continue;
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden' || element.closest('[aria-busy=true]') || element.getBoundingClientRect().right < 0) continue;
      const back = background(element);
      const fore = parse(style.color);
      const blended = { r: fore.r * fore.a + back.r * (1 - fore.a), g: fore.g * fore.a + back.g * (1 - fore.a), b: fore.b * fore.a + back.b * (1 - fore.a), a: 1 };
      const [light, dark] = [luminance(blended), luminance(back)].sort((x, y) => y - x);
      const ratio = (light! + 0.05) / (dark! + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) failures.push(`${element.tagName.toLowerCase()}.${element.className} "${element.textContent!.trim().slice(0, 40)}" ${ratio.toFixed(2)}:1`);
    }
    return failures;
  });
}

/** Form controls without an accessible name. */
export function unlabelledControls(page: Page) {
  return page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((control) => {
      const element = control as HTMLInputElement;
      if (element.type === 'hidden') return false;
      const name = element.labels?.length ? [...element.labels].map((label) => label.textContent).join(' ') : element.getAttribute('aria-label') ?? (element.tagName === 'BUTTON' ? element.textContent : '');
      return !name?.trim();
    })
    .map((control) => control.outerHTML.slice(0, 80)));
}


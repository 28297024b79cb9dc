/**
 * What a dashboard page does wrong in its layout, measured in the browser as
 * it stands: a page wider than the window, a card that scrolls sideways or
 * whose content (an element, or a line of text) reaches past its edge, a table
 * cell whose content spills out of it, form controls of different heights or
 * fonts, a placeholder cut off by its field, and a page head whose Live switch
 * is not beside its heading (when there is room) or touches what follows. Each
 * problem names the element.
 */
import type { Page } from 'playwright-core';

/**
 * The check as browser JavaScript. A string, not a function: tsx compiles a function's inner helpers with
 * esbuild's `__name` calls, which do not exist in the page.
 */
const IN_PAGE = String.raw`(() => {
  const problems = [];
  const width = window.innerWidth;
  const SLACK = 1;
  const short = (text) => { const t = (text || '').trim().replace(/\s+/g, ' '); return t.length > 60 ? t.slice(0, 60) + '…' : t; };
  const nameOf = (el) => {
    const classes = el.classList.length ? '.' + [...el.classList].join('.') : '';
    const label = el.dataset && el.dataset.label ? '[data-label="' + el.dataset.label + '"]' : '';
    return el.tagName.toLowerCase() + classes + label + ' "' + short(el.textContent) + '"';
  };
  const cardNameOf = (card) => {
    const heading = card.querySelector('h1, h2, h3, summary, legend');
    return 'the card ' + (heading ? '"' + short(heading.textContent) + '"' : nameOf(card));
  };
  const shown = (el) => el.getClientRects().length > 0 && !el.closest('.visually-hidden');
  // Inside a box that scrolls or clips on purpose (the raw MIME, a frame): not the page's layout.
  const inScroller = (el, stop) => {
    for (let p = el.parentElement; p && p !== stop; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
    return false;
  };
  // The right edge of an element's own lines of text.
  const textRight = (el) => {
    let right = -Infinity;
    for (const node of el.childNodes) {
      if (node.nodeType !== 3 || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) right = Math.max(right, rect.right);
    }
    return right;
  };
  const rightOf = (el) => Math.max(el.getBoundingClientRect().right, textRight(el));
  // The innermost offenders only: their ancestors overflow because of them.
  const innermost = (offenders) => offenders.filter((el) => !offenders.some((other) => other !== el && el.contains(other)));
  const round = (n) => Math.round(n * 10) / 10;

  const root = document.documentElement;
  if (root.scrollWidth > width) problems.push('the page scrolls sideways: ' + root.scrollWidth + ' px wide in a ' + width + ' px window');

  for (const card of document.querySelectorAll('.card')) {
    if (!shown(card)) continue;
    const box = card.getBoundingClientRect();
    const style = getComputedStyle(card);
    const edge = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
    if (box.right > width + SLACK) problems.push(cardNameOf(card) + ' ends at ' + round(box.right) + ' px, past the window (' + width + ' px)');
    if (card.scrollWidth > card.clientWidth + SLACK) problems.push(cardNameOf(card) + ' scrolls sideways: ' + card.scrollWidth + ' px of content in ' + card.clientWidth);
    const inside = [...card.querySelectorAll('*')].filter((el) => shown(el) && !inScroller(el, card));
    for (const el of innermost(inside.filter((el) => rightOf(el) > edge + SLACK))) {
      problems.push(nameOf(el) + ' reaches ' + round(rightOf(el)) + ' px, past the edge of ' + cardNameOf(card) + ' at ' + round(edge) + ' px');
    }
    for (const cell of card.querySelectorAll('td, th')) {
      if (!shown(cell) || inScroller(cell, card)) continue;
      const cellRight = cell.getBoundingClientRect().right;
      const spilling = [cell, ...cell.querySelectorAll('*')].filter((el) => shown(el) && rightOf(el) > cellRight + SLACK && rightOf(el) <= edge + SLACK);
      for (const el of innermost(spilling)) problems.push(nameOf(el) + ' spills out of its cell ' + nameOf(cell) + ' in ' + cardNameOf(card));
    }
  }

  // One height and one font for the fields and buttons of every form (links that look like links aside).
  for (const form of document.querySelectorAll('form')) {
    const controls = [...form.querySelectorAll('input, select, textarea, button')].filter(
      (c) => shown(c) && !c.closest('table') && !['checkbox', 'radio', 'hidden'].includes(c.type) && !c.classList.contains('link'),
    );
    const look = (c) => { const s = getComputedStyle(c); return { height: round(c.getBoundingClientRect().height), font: s.fontSize + ' ' + s.fontFamily.split(',')[0] }; };
    const looks = controls.map(look);
    // A button whose label wraps (a long workspace name on a phone) is rightly taller: its lines are what count.
    const lines = (c) => {
      const range = document.createRange();
      range.selectNodeContents(c);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    };
    const heights = new Set(looks.filter((l, i) => controls[i].tagName !== 'BUTTON' || lines(controls[i]) <= 1).map((l) => l.height));
    const fonts = new Set(looks.map((l) => l.font));
    const heading = form.querySelector('h1, h2, summary') || form.closest('details')?.querySelector('summary');
    const formName = 'the form ' + (form.getAttribute('aria-label') ? '"' + form.getAttribute('aria-label') + '"' : heading ? '"' + short(heading.textContent) + '"' : nameOf(form));
    const list = () => controls.map((c, i) => c.tagName.toLowerCase() + ' "' + short(c.getAttribute('aria-label') || c.textContent || c.placeholder || c.type) + '" ' + looks[i].height + ' px, ' + looks[i].font).join('; ');
    if (Math.max(...heights) - Math.min(...heights) > SLACK) problems.push(formName + ' has controls of different heights: ' + list());
    if (fonts.size > 1) problems.push(formName + ' has controls in different fonts: ' + list());
  }

  // A placeholder says what to type only when it is seen whole.
  const measure = document.createElement('canvas').getContext('2d');
  for (const input of document.querySelectorAll('input[placeholder]')) {
    if (!shown(input) || input.value !== '') continue;
    const style = getComputedStyle(input);
    measure.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const needed = measure.measureText(input.placeholder).width;
    if (needed > room + SLACK) problems.push('the placeholder of ' + nameOf(input) + ' "' + input.placeholder + '" is cut off: ' + round(needed) + ' px in ' + round(room));
  }

  // A page head: its switch beside the heading where both fit on one line, and space before what follows.
  for (const head of document.querySelectorAll('.page-head')) {
    const heading = head.querySelector('h1');
    const toggle = head.querySelector('button');
    if (!heading || !toggle) continue;
    const h = heading.getBoundingClientRect();
    const t = toggle.getBoundingClientRect();
    if (width >= 1000 && (t.top >= h.bottom || t.bottom <= h.top)) problems.push('the switch ' + nameOf(toggle) + ' is not beside the heading ' + nameOf(heading));
    const next = head.nextElementSibling;
    if (next && shown(next)) {
      const gap = next.getBoundingClientRect().top - Math.max(h.bottom, t.bottom);
      if (gap < 8) problems.push('the page head ' + nameOf(heading) + ' is ' + round(gap) + ' px from ' + nameOf(next) + ' below it');
    }
  }
  return problems;
})()`;

/** Every layout problem of the page as shown now, each naming the element (empty when there is none). */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(IN_PAGE) as Promise<string[]>;
}

/**
 * The Overview's chart follows its box through a ResizeObserver, which answers after the new layout: a page
 * measured right after a resize would find the chart still at its old width. Resolves at once without a chart.
 */
export async function chartFollowed(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const canvas = document.querySelector('.chart-plot canvas');
    return canvas === null || canvas.getBoundingClientRect().width <= canvas.closest('.chart-plot')!.clientWidth;
  });
}

/** The page's layout problems at 1440 and 390 pixels wide, each named with `name` and the width; the viewport is left at 1440. */
export async function layoutProblemsAtBothWidths(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await chartFollowed(page);
    problems.push(...(await layoutProblems(page)).map((p) => `${name} at ${width} px: ${p}`));
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  return problems;
}

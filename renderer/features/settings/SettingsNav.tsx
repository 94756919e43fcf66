/**
 * Settings' section links: one link per section, kept in view while the page scrolls (at the
 * side on a wide window, along the top otherwise). A link brings its section to the top and
 * puts the focus on its heading; the link of the section being read is marked aria-current.
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { t } from '../../i18n/strings';
import './settings.css';

export interface SettingsSectionLink {
  /** The id of the section's heading (an h2, or a fieldset's legend). */
  id: string;
  label: string;
}

/** The scrolling element the screens live in (App.tsx's main). */
const scroller = () => document.getElementById('main');

/** Where a heading counts as reached: this far below the top of the scrolling area (the top bar's height, and some). */
const READ_LINE = 96;

/** The section being read: the last whose heading is above the read line (the first when none is). */
export function currentSection(tops: readonly { id: string; top: number }[], line: number): string | undefined {
  let current = tops[0]?.id;
  for (const h of tops) if (h.top <= line) current = h.id;
  return current;
}

/** Moves only the screens' scroller so that `el` is centred in it (scrollIntoView would move the document too). */
export function centreInView(el: HTMLElement): void {
  const main = scroller();
  if (!main) return el.scrollIntoView({ block: 'center' });
  const r = el.getBoundingClientRect();
  const area = main.getBoundingClientRect();
  main.scrollTop += r.top + r.height / 2 - (area.top + area.height / 2);
}

/**
 * Keeps a field just sent to centred while the sections above it finish loading (they grow as
 * their data comes in), until it loses the focus or the user scrolls, types or clicks.
 */
export function keepInView(el: HTMLElement): () => void {
  centreInView(el);
  const main = scroller();
  if (!main || typeof ResizeObserver === 'undefined') return () => {};
  const observer = new ResizeObserver(() => {
    if (document.activeElement === el) centreInView(el);
    else stop();
  });
  const stop = () => {
    observer.disconnect();
    for (const type of ['wheel', 'keydown', 'pointerdown', 'touchstart']) main.removeEventListener(type, stop);
  };
  for (const child of Array.from(main.children)) observer.observe(child);
  for (const type of ['wheel', 'keydown', 'pointerdown', 'touchstart']) main.addEventListener(type, stop, { passive: true });
  return stop;
}

export function SettingsNav({ sections }: { sections: readonly SettingsSectionLink[] }) {
  const [current, setCurrent] = useState<string | undefined>(sections[0]?.id);
  /** The section last jumped to: kept current while its heading is in view (the page's end may not let it reach the top). */
  const jumped = useRef<string | null>(null);
  const key = sections.map((s) => s.id).join(' ');

  useEffect(() => {
    const main = scroller();
    if (!main) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const area = main.getBoundingClientRect();
      if (jumped.current) {
        const r = document.getElementById(jumped.current)?.getBoundingClientRect();
        if (r && r.bottom > area.top && r.top < area.bottom) return;
        jumped.current = null;
      }
      const tops = key
        .split(' ')
        .map((id) => ({ id, el: document.getElementById(id) }))
        .filter((h): h is { id: string; el: HTMLElement } => !!h.el)
        .map((h) => ({ id: h.id, top: h.el.getBoundingClientRect().top - area.top }));
      setCurrent(currentSection(tops, READ_LINE));
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    main.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      main.removeEventListener('scroll', onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [key]);

  const go = (e: MouseEvent, id: string) => {
    const heading = document.getElementById(id);
    if (!heading) return;
    // The app's address is its screen (#/settings): the link moves the view, not the address.
    e.preventDefault();
    jumped.current = id;
    setCurrent(id);
    // Only the screens' scroller moves (scrollIntoView would move the document too, sticky links and all).
    const main = scroller();
    if (main) {
      const margin = parseFloat(getComputedStyle(heading).scrollMarginTop) || 0;
      main.scrollTop += heading.getBoundingClientRect().top - main.getBoundingClientRect().top - margin;
    } else heading.scrollIntoView({ block: 'start' });
    if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  };

  return (
    <nav className="settings-nav" aria-label={t.settings.sectionsLabel} data-testid="settings-nav">
      <ul>
        {sections.map((s) => (
          <li key={s.id}>
            <a href={`#${s.id}`} aria-current={current === s.id ? 'location' : undefined} data-testid={`settings-nav-${s.id}`} onClick={(e) => go(e, s.id)}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

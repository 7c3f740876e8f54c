/** The console's page frame: skip link, navigation, one main region, the client script. */
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';
import { CONSOLE_CSS } from './styles.ts';

const NAV = [
  { href: '/', label: 'Runs' },
  { href: '/compare', label: 'Compare' },
  { href: '/catalog', label: 'Catalog' },
  { href: '/spec-to-eval', label: 'Spec to eval' },
  { href: '/mutate', label: 'Mutate' },
  { href: '/health', label: 'Health' },
];

export function Layout(props: { title: string; current?: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Agent Eval Harness</title>
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
        {/* <style> is raw text in HTML: escaped quotes would break the CSS. The stylesheet is our constant. */}
        <style>{raw(CONSOLE_CSS)}</style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <strong>Agent Eval Harness</strong>
          {props.current !== undefined && (
            <nav aria-label="Console">
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={item.href === props.current ? 'page' : undefined}>{item.label}</a>
                  </li>
                ))}
                <li><button type="button" id="sign-out" class="secondary">Sign out</button></li>
              </ul>
            </nav>
          )}
        </header>
        <main id="main" tabindex={-1}>{props.children}</main>
        <script src="/console/app.js" defer></script>
      </body>
    </html>
  );
}

/** A compliance or status badge with a text label (colour is never the only signal). */
export function Badge(props: { value: string | null | undefined }) {
  const value = props.value ?? 'n/a';
  return <span class={`badge ${value}`}>{value}</span>;
}

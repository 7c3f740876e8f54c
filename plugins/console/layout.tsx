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

/**
 * A run's one badge: its verdict (the compliance status) once it is finished, and its state only while it is not,
 * so a green "succeeded" never sits beside a red "fail". A cancelled run has no verdict and shows "cancelled";
 * a verdict of "error" carries its reason as a tooltip.
 */
export function Verdict(props: { status: string; compliance?: { status?: string; reason?: string } | null }) {
  const finished = props.status !== 'queued' && props.status !== 'running';
  const value = finished ? props.compliance?.status ?? props.status : props.status;
  return <span class={`badge ${value}`} title={finished && props.compliance?.reason ? props.compliance.reason : undefined}>{value}</span>;
}

/** A run's agent: its registry name, else its adapter and the start of its configuration hash. */
export function AgentLabel(props: { agent?: { name?: string; adapter: string; config_hash: string } | null }) {
  const { agent } = props;
  if (!agent) return <span class="muted">—</span>;
  if (agent.name) return <span><a href={`/?agent=${encodeURIComponent(agent.name)}`}>{agent.name}</a></span>;
  return <span>{agent.adapter} <code class="muted" title={`configuration ${agent.config_hash}`}>{agent.config_hash.slice(0, 8)}</code></span>;
}

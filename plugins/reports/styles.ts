/**
 * The report's stylesheet, inlined in every report: system fonts, WCAG AA contrast, print-friendly, no external
 * assets. A constant: no data ever reaches it.
 */
export const REPORT_CSS = `
:root{--fg:#1b1f24;--muted:#4a5360;--bg:#fff;--panel:#f4f6f8;--line:#d0d7de;--accent:#0b5cad;--pass:#116329;--warn:#7a4d00;--fail:#a40e26;--err:#6e2a8a}
*{box-sizing:border-box}body{margin:0 auto;max-width:1100px;padding:20px;font:15px/1.5 -apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans","DejaVu Sans",Arial,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:16px;margin:18px 0 6px}
nav ul{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:8px 0 16px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{background:var(--panel)}
.table-wrap{overflow-x:auto;max-width:100%}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:13px;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.pass,.valid,.ok,.succeeded{color:var(--pass)}.warning,.warn,.unmeasured,.running,.queued,.not_run{color:var(--warn)}.fail,.invalid,.failed,.expired{color:var(--fail)}.error,.cancelled{color:var(--err)}
.muted{color:var(--muted)}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}code{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);padding:6px 8px;border-radius:4px;margin:4px 0;max-height:480px;overflow:auto;unicode-bidi:isolate}
pre.commands{max-height:none}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
figure{margin:8px 0}figure svg{max-width:100%;height:auto}figcaption{color:var(--muted);font-size:13px}
details.unit{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}details.unit>summary{cursor:pointer;padding:2px 0}
ol.events{list-style:none;padding:0;margin:6px 0}li.ev{border-top:1px solid var(--line);padding:6px 0}a.seq{font-family:ui-monospace,Menlo,monospace;font-size:12px;color:var(--muted);margin-right:4px}
li.ev:target{background:#fff8c5}.kv .k{font-size:12px;color:var(--muted)}ul.failures,ul.patch,ul.checks{margin:4px 0;padding-left:20px}
.sev{font-size:12px;text-transform:uppercase;color:var(--muted)}
@media print{details{display:block}details>summary{list-style:none}pre{max-height:none}body{max-width:none}}
`;

/** The console's stylesheet: system fonts, WCAG AA contrast, visible focus, no external assets. */
export const CONSOLE_CSS = `
:root{--fg:#1b1f24;--muted:#4a5360;--bg:#fff;--panel:#f4f6f8;--line:#d0d7de;--accent:#0b5cad;--pass:#116329;--warn:#7a4d00;--fail:#a40e26;--err:#6e2a8a}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 -apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans","DejaVu Sans",Arial,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:focus,button:focus,input:focus,select:focus,textarea:focus,summary:focus{outline:3px solid #ffbf47;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:9}
header{display:flex;flex-wrap:wrap;gap:8px 24px;align-items:center;padding:10px 20px;border-bottom:1px solid var(--line);background:var(--panel)}
header strong{font-size:16px}nav ul{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;list-style:none;margin:0;padding:0}nav a[aria-current=page]{font-weight:700;text-decoration:none}
main{padding:20px;max-width:1200px}h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;margin:20px 0 8px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{background:var(--panel)}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:13px;font-weight:600;border:1px solid currentColor}
.pass,.valid,.ok,.succeeded{color:var(--pass)}.warning,.warn,.running,.queued{color:var(--warn)}.fail,.invalid,.failed,.expired{color:var(--fail)}.error,.cancelled{color:var(--err)}
form.filters{display:flex;flex-wrap:wrap;gap:12px;align-items:end;margin-bottom:12px}label{display:flex;flex-direction:column;font-size:13px;color:var(--muted);gap:2px}
input,select,textarea,button{font:inherit;max-width:100%;padding:5px 8px;border:1px solid #8c959f;border-radius:4px;background:#fff;color:var(--fg)}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}button.secondary{background:#fff;color:var(--accent)}
textarea{width:100%;min-height:260px;font-family:ui-monospace,Menlo,monospace;font-size:13px}
.facets{display:flex;flex-wrap:wrap;gap:20px}.facets ul{list-style:none;padding:0;margin:0;max-height:180px;overflow:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(320px,100%),1fr));gap:20px}.panel>h2:first-child{margin-top:0}.panel{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:12px}
.muted{color:var(--muted)}code,pre{font-family:ui-monospace,Menlo,monospace;font-size:13px}pre{white-space:pre-wrap;background:var(--panel);padding:8px;border-radius:4px}
del{background:#ffebe9;color:#82071e;text-decoration-thickness:2px}ins{background:#dafbe1;color:#044f1e;text-decoration:none}
.progress{width:160px;max-width:100%;height:10px}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.table-wrap{overflow-x:auto;max-width:100%}figure{margin:0}figure svg{width:100%;max-width:520px;height:auto}
code{overflow-wrap:anywhere}dd{margin:0 0 6px 16px}dt{font-weight:600}
details.unit{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}ol.events{list-style:none;padding:0;margin:6px 0}li.event{border-top:1px solid var(--line);padding:6px 0}
@media (max-width:600px){main{padding:12px}header{padding:8px 12px}.grid{grid-template-columns:1fr}}[aria-busy=true]{opacity:.6}.notice{padding:8px 12px;border-left:4px solid var(--accent);background:var(--panel)}
`;

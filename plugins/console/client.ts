/**
 * The console's only client script (served at /console/app.js): keeps the credential in sessionStorage,
 * loads server-rendered fragments with it, and wires forms and buttons to the public API. No framework.
 */
export const CONSOLE_SCRIPT = String.raw`
(() => {
  const KEY = 'aeh.credential';
  const credential = () => sessionStorage.getItem(KEY);
  const auth = () => (credential() ? { Authorization: 'Bearer ' + credential() } : {});
  const signIn = () => { location.href = '/sign-in?next=' + encodeURIComponent(location.pathname + location.search); };
  // The server already reduced next to a same-origin path; checked again so the script never leaves the origin.
  const sameOrigin = (path) => (typeof path === 'string' && /^\/(?![\/\\])[^\\\u0000-\u001f\u007f]*$/.test(path) ? path : '/');

  async function api(path, init = {}) {
    const res = await fetch(path, { ...init, headers: { ...auth(), ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers || {}) } });
    if (res.status === 401) { sessionStorage.removeItem(KEY); signIn(); throw new Error('signed out'); }
    return res;
  }

  // A refresh replaces the fragment only when it changed and nothing inside it has focus, so keyboard and
  // screen-reader users are not thrown back to the top of the page every few seconds.
  const rendered = new WeakMap();
  async function load(el, refresh) {
    if (refresh && el.contains(document.activeElement)) return;
    const url = el.dataset.fragment + (el.dataset.query === 'page' ? location.search : '');
    if (!refresh) el.setAttribute('aria-busy', 'true');
    try {
      const res = await api(url);
      const html = await res.text();
      if (!(refresh && html === rendered.get(el))) {
        el.innerHTML = html;
        rendered.set(el, html);
        wire(el);
      }
    } catch (e) { if (e.message !== 'signed out' && !refresh) el.textContent = 'Could not load: ' + e.message; }
    el.removeAttribute('aria-busy');
  }

  async function post(form) {
    const target = document.querySelector(form.dataset.target);
    const body = {};
    for (const [name, value] of new FormData(form)) if (value !== '') body[name] = /^(seed|count)$/.test(name) ? Number(value) : value;
    target.setAttribute('aria-busy', 'true');
    const res = await api(form.dataset.post, { method: 'POST', body: JSON.stringify(body) });
    target.innerHTML = await res.text();
    target.removeAttribute('aria-busy');
    wire(target);
    target.focus();
  }

  async function launch(button) {
    const status = document.getElementById(button.getAttribute('aria-controls'));
    const body = button.dataset.scenario ? { scenario: JSON.parse(button.dataset.scenario) } : { scenario_id: button.dataset.launch };
    // The catalog's agent picker: a registered agent over the scenario's own.
    const picked = document.getElementById('launch-agent');
    if (picked && picked.value) body.agent = picked.value;
    button.disabled = true;
    status.textContent = 'Submitting…';
    const res = await api('/api/evaluate', { method: 'POST', body: JSON.stringify(body) });
    const accepted = await res.json();
    if (res.status !== 202) { status.textContent = 'Refused: ' + (accepted.detail || res.status); button.disabled = false; return; }
    for (;;) {
      const task = await (await api(accepted.status_url)).json();
      const p = task.progress || { done: 0, total: 0 };
      status.innerHTML = '';
      const bar = document.createElement('progress'); bar.className = 'progress'; bar.max = p.total || 1; bar.value = p.done;
      bar.setAttribute('aria-label', 'evaluation progress');
      status.append(task.status + ' ', bar, ' ' + p.done + '/' + p.total + ' ');
      if (['succeeded', 'failed', 'cancelled'].includes(task.status)) {
        const link = document.createElement('a'); link.href = '/runs/' + task.run_id; link.textContent = 'Open run ' + task.run_id;
        status.append(link);
        button.disabled = false;
        return;
      }
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  async function verify(el) {
    const res = await fetch('/api/v1/verify/' + encodeURIComponent(el.dataset.verify));
    const result = await res.json().catch(() => ({}));
    const status = result.status || (res.status === 404 ? 'missing' : 'invalid');
    el.textContent = status === 'valid' ? 'verified: valid' : 'verify: ' + status;
    el.className = 'badge ' + status;
    const failed = (result.checks || []).filter((c) => !c.ok).map((c) => c.id + ': ' + c.detail);
    el.title = failed.join('; ') || 'every check passed';
  }

  async function download(link) {
    const res = await api(link.dataset.download);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a'); a.href = url; a.download = link.dataset.filename || 'download'; a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function wire(root) {
    root.querySelectorAll('[data-fragment]').forEach((el) => load(el, false));
    root.querySelectorAll('form[data-post]').forEach((f) => f.addEventListener('submit', (e) => { e.preventDefault(); post(f); }));
    root.querySelectorAll('button[data-launch],button[data-scenario]').forEach((b) => b.addEventListener('click', () => launch(b)));
    root.querySelectorAll('[data-verify]').forEach(verify);
    root.querySelectorAll('a[data-download]').forEach((a) => a.addEventListener('click', (e) => { e.preventDefault(); download(a); }));
  }

  function start() {
    const form = document.getElementById('sign-in');
    if (form) {
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const value = form.credential.value.trim();
        const res = await fetch('/api/info', { headers: { Authorization: 'Bearer ' + value } });
        if (res.ok) {
          sessionStorage.setItem(KEY, value);
          location.href = sameOrigin(form.dataset.next);
        } else document.getElementById('sign-in-error').textContent = 'That credential was refused (' + res.status + ').';
      });
      return;
    }
    if (!credential()) return signIn();
    document.getElementById('sign-out')?.addEventListener('click', () => { sessionStorage.removeItem(KEY); signIn(); });
    wire(document);
    const live = document.querySelector('[data-refresh]');
    if (live) setInterval(() => { if (!document.hidden) load(live, true); }, Number(live.dataset.refresh));
  }
  start();
})();
`;

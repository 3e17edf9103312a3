/**
 * The dry-run dashboard: one HTML page with a small script (no build step) over the public
 * API. The merchant's credentials stay in sessionStorage of the tab. Provider payloads are
 * untrusted text: the script only ever sets textContent, never HTML.
 */
export function renderDryRunDashboard(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Switchyard dry-run validation</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{margin:0;font:14px system-ui,sans-serif;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:16px;align-items:center}
header h1{font-size:17px;margin:0;flex:1}
main{padding:16px 20px}
.card{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px 16px;margin-bottom:16px}
label{display:block;margin:6px 0 2px;font-weight:600}
input,select{font:inherit;padding:5px 7px;border:1px solid #b8bec6;border-radius:4px;min-width:220px}
button{font:inherit;padding:6px 12px;border-radius:4px;border:1px solid #2d5bd1;background:#2d5bd1;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2d5bd1}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e6e8eb}
tbody tr{cursor:pointer} tbody tr:hover{background:#eef3ff}
.verdict{font-weight:700;padding:1px 6px;border-radius:3px}
.PASS{background:#dff5e3;color:#176a2a}.WARN{background:#fff2d6;color:#8a5a00}.FAIL{background:#fde0e0;color:#a11b1b}
.filters{display:flex;gap:12px;align-items:end;flex-wrap:wrap;margin-bottom:8px}
.panes{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.pane{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:8px 12px;overflow:auto;max-height:70vh}
.json{font:12px ui-monospace,monospace;white-space:pre}
.node{padding-left:14px}.k{color:#7a3e9d}.s{color:#17693a}.n{color:#1f4fb3}
.flag-ERROR{background:#fde0e0}.flag-WARNING{background:#fff2d6}.flag-INFO{background:#e6f0ff}
.hl{outline:2px solid #d12d5b;background:#ffd1dc !important}
.finding{border-left:4px solid #999;padding:6px 10px;margin:6px 0;background:#fafbfc;cursor:pointer}
.finding.ERROR{border-color:#c62828}.finding.WARNING{border-color:#e0a100}.finding.INFO{border-color:#2d5bd1}
.finding.selected{background:#eef3ff}
.finding code{font-size:12px}
.event{border-top:1px solid #e6e8eb;padding-top:6px;margin-top:6px}
.muted{color:#6b7380}.error{color:#a11b1b}
</style>
</head>
<body>
<header><h1>Switchyard dry-run validation</h1><span id="who" class="muted"></span><button id="logout" class="secondary" hidden>Forget credentials</button></header>
<main>
<section id="login" class="card" hidden>
  <p>Enter the merchant credentials, or a whitelabel embed token. They are kept in this browser tab only (sessionStorage).
  A portal embedding this page can pass the token in the address fragment: <code>/dashboard/dry-run#token=&lt;access_token&gt;</code>.</p>
  <label for="public-key">Public API key</label><input id="public-key" autocomplete="off">
  <label for="secret-key">Private secret key</label><input id="secret-key" type="password" autocomplete="off">
  <label for="embed-token">or embed token (POST /v1/organizations/authenticate)</label><input id="embed-token" type="password" autocomplete="off">
  <p><button id="login-button">Open dashboard</button> <span id="login-error" class="error"></span></p>
</section>
<section id="list-view" hidden>
  <div class="card">
    <div class="filters">
      <div><label for="f-reference">merchant_reference</label><input id="f-reference"></div>
      <div><label for="f-status">status</label><select id="f-status"><option value="">any</option><option>REGISTERED</option><option>PAIRED</option><option>VALIDATED</option><option>UNMATCHED</option></select></div>
      <div><label for="f-verdict">verdict</label><select id="f-verdict"><option value="">any</option><option>PASS</option><option>WARN</option><option>FAIL</option></select></div>
      <div><button id="f-apply">Filter</button></div>
    </div>
    <table id="list"><thead><tr><th>created</th><th>merchant_reference</th><th>provider</th><th>status</th><th>verdict</th><th>score</th></tr></thead><tbody></tbody></table>
    <p><button id="more" class="secondary" hidden>More</button> <span id="list-error" class="error"></span></p>
  </div>
</section>
<section id="report-view" hidden>
  <p><button id="back" class="secondary">Back to the list</button></p>
  <div class="card" id="report-head"></div>
  <div class="card"><h3>Findings</h3><div id="findings"></div></div>
  <div class="panes">
    <div class="pane"><h3>Service request (Dry-run: true)</h3><div id="service" class="json"></div></div>
    <div class="pane"><h3>Provider exchange</h3><div id="provider"></div></div>
  </div>
</section>
</main>
<script>
(function () {
  'use strict';
  var KEY = 'switchyard.dryrun.credentials';
  var $ = function (id) { return document.getElementById(id); };
  var state = { cursor: null };
  function creds() { try { return JSON.parse(sessionStorage.getItem(KEY) || 'null'); } catch (e) { return null; } }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined && text !== null) e.textContent = String(text); return e; }
  function api(path) {
    var c = creds();
    var headers = c.token ? { authorization: 'Bearer ' + c.token } : { 'public-api-key': c.publicKey, 'private-secret-key': c.secret };
    return fetch(path, { headers: headers }).then(function (r) {
      return r.json().then(function (body) { if (!r.ok) { var err = new Error((body && (body.messages || [body.message]).join('; ')) || r.status); err.status = r.status; throw err; } return body; });
    });
  }
  function show(view) { ['login', 'list-view', 'report-view'].forEach(function (id) { $(id).hidden = id !== view; }); $('logout').hidden = view === 'login'; }

  function start() {
    if (!creds()) { show('login'); return; }
    $('who').textContent = creds().token ? 'embed token' : creds().publicKey;
    route();
  }
  function route() {
    var m = /^#\\/registrations\\/([A-Za-z0-9_-]{21})$/.exec(location.hash);
    if (m) openReport(m[1]); else { show('list-view'); loadList(true); }
  }
  window.addEventListener('hashchange', function () { if (creds()) route(); });
  function signIn(c) {
    sessionStorage.setItem(KEY, JSON.stringify(c));
    api('/v1/dry-run/provider-events?limit=1').then(function () { $('login-error').textContent = ''; start(); }, function (e) { sessionStorage.removeItem(KEY); show('login'); $('login-error').textContent = e.message; });
  }
  $('login-button').addEventListener('click', function () {
    var token = $('embed-token').value.trim();
    var c = token ? { token: token } : { publicKey: $('public-key').value.trim(), secret: $('secret-key').value.trim() };
    if (!c.token && (!c.publicKey || !c.secret)) { $('login-error').textContent = 'both keys (or an embed token) are needed to read reports'; return; }
    signIn(c);
  });
  // An embedding portal hands over a whitelabel token in the fragment (never sent to a server).
  var fromFragment = /^#token=([A-Za-z0-9._-]+)$/.exec(location.hash);
  if (fromFragment) { history.replaceState(null, '', location.pathname); signIn({ token: fromFragment[1] }); }
  $('logout').addEventListener('click', function () { sessionStorage.removeItem(KEY); location.hash = ''; show('login'); });
  $('f-apply').addEventListener('click', function () { loadList(true); });
  $('more').addEventListener('click', function () { loadList(false); });
  $('back').addEventListener('click', function () { location.hash = ''; });

  function loadList(reset) {
    var q = new URLSearchParams({ limit: '25' });
    if ($('f-reference').value) q.set('merchant_reference', $('f-reference').value);
    if ($('f-status').value) q.set('status', $('f-status').value);
    if ($('f-verdict').value) q.set('verdict', $('f-verdict').value);
    if (!reset && state.cursor) q.set('cursor', state.cursor);
    api('/v1/dry-run/provider-events?' + q).then(function (page) {
      var body = $('list').tBodies[0];
      if (reset) body.textContent = '';
      page.data.forEach(function (r) {
        var tr = el('tr'); tr.dataset.id = r.id;
        tr.appendChild(el('td', '', r.created_at.replace('T', ' ').slice(0, 19)));
        tr.appendChild(el('td', 'reference', r.merchant_reference));
        tr.appendChild(el('td', '', r.provider_id || ''));
        tr.appendChild(el('td', 'status', r.status));
        var v = el('td'); if (r.verdict) v.appendChild(el('span', 'verdict ' + r.verdict, r.verdict)); tr.appendChild(v);
        tr.appendChild(el('td', '', r.score === null ? '' : r.score));
        tr.addEventListener('click', function () { location.hash = '#/registrations/' + r.id; });
        body.appendChild(tr);
      });
      state.cursor = page.next_cursor; $('more').hidden = !page.next_cursor; $('list-error').textContent = '';
    }, function (e) { $('list-error').textContent = e.message; });
  }

  // JSON rendered as nested nodes carrying their dotted path, so findings can point at them.
  function renderJson(value, path, attrs) {
    if (value === null || typeof value !== 'object') {
      var cls = typeof value === 'string' ? 's' : 'n';
      return el('span', cls, JSON.stringify(value));
    }
    var wrap = el('span');
    var isArray = Array.isArray(value);
    wrap.appendChild(document.createTextNode(isArray ? '[' : '{'));
    Object.keys(value).forEach(function (k) {
      var p = path ? path + '.' + k : k;
      var line = el('div', 'node'); line.dataset.path = p;
      for (var a in attrs) line.dataset[a] = attrs[a];
      if (!isArray) { line.appendChild(el('span', 'k', JSON.stringify(k))); line.appendChild(document.createTextNode(': ')); }
      line.appendChild(renderJson(value[k], p, attrs));
      wrap.appendChild(line);
    });
    wrap.appendChild(document.createTextNode(isArray ? ']' : '}'));
    return wrap;
  }

  function providerEvent(ev, i) {
    var box = el('div', 'event'); box.dataset.event = String(i);
    box.appendChild(el('strong', '', '#' + i + ' ' + ev.type + ' ' + ev.operation_type + ' ' + (ev.http_method || '') + ' ' + (ev.base_url || '') + (ev.endpoint || '') + (ev.http_status_code ? ' -> ' + ev.http_status_code : '')));
    var headers = el('div', 'json');
    ev.headers.forEach(function (h) { headers.appendChild(el('div', 'muted', h.name + ': ' + h.value)); });
    box.appendChild(headers);
    var body = el('div', 'json'); body.dataset.event = String(i);
    if (ev.body.format === 'json' && ev.body.text) body.appendChild(renderJson(JSON.parse(ev.body.text), '', { event: String(i) }));
    else if (ev.body.text) body.appendChild(el('pre', '', ev.body.text));
    else body.appendChild(el('span', 'muted', ev.body.format === 'binary' ? '(binary body, ' + ev.body.encoded_bytes + ' bytes, not stored)' : '(no body)'));
    box.appendChild(body);
    return box;
  }

  function targets(f) {
    var out = [];
    if (f.service_path) { var s = document.querySelector('#service [data-path="' + CSS.escape(f.service_path) + '"]'); if (s) out.push(s); }
    if (f.provider) {
      var p = document.querySelector('#provider [data-event="' + f.provider.event_index + '"][data-path="' + CSS.escape(f.provider.path) + '"]')
        || document.querySelector('#provider .event[data-event="' + f.provider.event_index + '"]');
      if (p) out.push(p);
    }
    return out;
  }

  function select(f, item) {
    document.querySelectorAll('.hl').forEach(function (n) { n.classList.remove('hl'); });
    document.querySelectorAll('.finding.selected').forEach(function (n) { n.classList.remove('selected'); });
    item.classList.add('selected');
    targets(f).forEach(function (n, i) { n.classList.add('hl'); if (i === 0 || true) n.scrollIntoView({ block: 'nearest' }); });
  }

  function openReport(id) {
    show('report-view');
    ['report-head', 'findings', 'service', 'provider'].forEach(function (x) { $(x).textContent = ''; });
    api('/v1/dry-run/provider-events/' + encodeURIComponent(id)).then(function (r) {
      var head = $('report-head');
      head.appendChild(el('h2', '', r.merchant_reference));
      var line = el('p');
      line.appendChild(el('span', 'status', r.status + ' '));
      if (r.report) { line.appendChild(el('span', 'verdict ' + r.report.verdict, r.report.verdict)); line.appendChild(el('span', '', ' score ' + r.report.score + ' - ' + r.report.mode + (r.report.profile_id ? ' (' + r.report.profile_id + ')' : '') + ' - report v' + r.report.version)); }
      else line.appendChild(el('span', 'muted', 'no report yet: ' + r.pairing.status));
      head.appendChild(line);
      head.appendChild(el('p', 'muted', 'id ' + r.id + ' - provider ' + (r.provider_id || 'unknown') + ' - ' + r.event_count + ' events'));
      if (r.service_request) $('service').appendChild(renderJson(r.service_request, '', {}));
      else $('service').appendChild(el('span', 'muted', 'no dry-run payment yet'));
      r.events.forEach(function (ev, i) { $('provider').appendChild(providerEvent(ev, i)); });
      var findings = (r.report && r.report.findings) || [];
      if (!findings.length) $('findings').appendChild(el('p', 'muted', r.report ? 'No findings.' : 'Waiting for the pair.'));
      findings.forEach(function (f) {
        var item = el('div', 'finding ' + f.severity); item.dataset.finding = f.id;
        item.appendChild(el('strong', '', f.severity + ' ' + f.code + ' '));
        item.appendChild(el('span', '', f.message));
        var where = el('div', 'muted');
        where.appendChild(el('code', '', 'service: ' + (f.service_path || '-') + '  provider: ' + (f.provider ? f.provider.leg + '#' + f.provider.event_index + ' ' + f.provider.path : '-')));
        item.appendChild(where);
        item.appendChild(el('div', 'muted', 'expected ' + JSON.stringify(f.expected) + ', actual ' + JSON.stringify(f.actual)));
        item.appendChild(el('div', '', 'Fix: ' + f.suggested_fix));
        item.addEventListener('click', function () { select(f, item); });
        $('findings').appendChild(item);
        targets(f).forEach(function (n) { n.classList.add('flag-' + f.severity); });
      });
      if (findings.length) select(findings[0], $('findings').firstChild);
    }, function (e) { $('report-head').appendChild(el('p', 'error', e.status === 404 ? 'registration not found' : e.message)); });
  }
  if (!fromFragment) start();
})();
</script>
</body>
</html>`;
}

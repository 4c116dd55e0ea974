#include "extender/status/status_page.h"

namespace headroom::extender {
namespace {

constexpr char kHtml[] = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>headroom</title>
<link rel="stylesheet" href="/ui/app.css">
<link rel="icon" href="data:,">
</head>
<body>
<header>
  <h1>headroom</h1>
  <span id="generated">loading&hellip;</span>
</header>
<main>
  <p id="error" class="error" hidden></p>
  <section id="cards" class="cards" aria-label="cluster savings"></section>
  <section>
    <h2>Requests over time</h2>
    <p class="note">Declared: what the pods ask for before headroom. Requested: what they ask for now. Projected: every pod at its base plus one shared headroom per node, what headroom places by. Allocatable: what the reporting nodes offer. One point a minute (--status-sample-interval), the last 1440.</p>
    <div class="charts">
      <figure><figcaption>CPU (cores)</figcaption><svg id="chart-cpu" viewBox="0 0 600 220" role="img" aria-label="CPU over time"></svg></figure>
      <figure><figcaption>Memory (GiB)</figcaption><svg id="chart-memory" viewBox="0 0 600 220" role="img" aria-label="memory over time"></svg></figure>
    </div>
  </section>
  <section>
    <h2>Nodes</h2>
    <p class="note">Bar: sum of the pods' bases (dark) plus the one shared headroom (light), against the node's allocatable (the frame). A node whose projection does not fit, or that is load-cordoned, takes no new pods.</p>
    <table id="nodes"><thead><tr><th>node</th><th>CPU projected / allocatable</th><th>memory projected / allocatable</th><th>declared CPU</th><th>declared memory</th><th>pods</th><th>load</th><th>state</th><th>report age</th></tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Namespaces</h2>
    <p class="note">Each namespace's step on the adoption ladder (headroom.dev/mode on the Namespace, else the cluster's --default-mode): observe changes nothing, admission sizes new pods, in-place also resizes running ones. "next step saves" is what the requests now exceed headroom's sizing by: what sizing new pods would save from observe, resizing running ones from admission, and what is still to come in-place.</p>
    <table id="namespaces"><thead><tr><th>namespace</th><th>step</th><th>workloads</th><th>pods</th><th>requested now</th><th>headroom would request</th><th>next step</th><th>next step saves</th></tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Set-up</h2>
    <p class="note" id="setup-note"></p>
    <table id="setup"><thead><tr><th>check</th><th>result</th><th>what was found</th><th>fix</th></tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Workloads</h2>
    <p class="note" id="workload-note"></p>
    <table id="workloads"><thead><tr><th>workload</th><th>replicas</th><th>declared per pod</th><th>headroom per pod</th><th>history</th><th>OOM</th><th>sizing</th><th>last action</th></tr></thead><tbody></tbody></table>
  </section>
</main>
<script type="module" src="/ui/app.js"></script>
</body>
</html>
)HTML";

constexpr char kScript[] =
    R"JS(// A module (strict, its own scope): small functions, each drawing one part of the page.
const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}
function cores(millis) {
  if (millis < 1000) return Math.round(millis) + 'm';
  return (millis / 1000).toFixed(millis < 10000 ? 2 : 1);
}
function bytes(value) {
  const gi = value / 1073741824;
  if (gi >= 1) return gi.toFixed(gi < 10 ? 2 : 1) + 'Gi';
  return Math.round(value / 1048576) + 'Mi';
}
function pct(fraction) { return (fraction * 100).toFixed(0) + '%'; }
function duration(seconds) {
  if (seconds >= 86400) return (seconds / 86400).toFixed(1) + 'd';
  if (seconds >= 3600) return (seconds / 3600).toFixed(1) + 'h';
  if (seconds >= 60) return Math.round(seconds / 60) + 'm';
  return seconds + 's';
}
function card(title, main, detail, cls) {
  const box = el('div', null, 'card' + (cls ? ' ' + cls : ''));
  box.appendChild(el('h3', title));
  box.appendChild(el('p', main, 'big'));
  box.appendChild(el('p', detail, 'detail'));
  return box;
}
function cards(cluster) {
  const host = $('cards');
  host.replaceChildren(
    card('CPU saved', pct(cluster.savings.cpu),
         'declared ' + cores(cluster.declared.cpuMillis) + ' -> projected ' + cores(cluster.projected.cpuMillis) + ' of ' + cores(cluster.allocatable.cpuMillis),
         cluster.savings.cpu > 0 ? 'good' : ''),
    card('Memory saved', pct(cluster.savings.memory),
         'declared ' + bytes(cluster.declared.memoryBytes) + ' -> projected ' + bytes(cluster.projected.memoryBytes) + ' of ' + bytes(cluster.allocatable.memoryBytes),
         cluster.savings.memory > 0 ? 'good' : ''),
    card('Nodes worth', cluster.nodesWorth.declared.toFixed(1) + ' -> ' + cluster.nodesWorth.projected.toFixed(1),
         'average nodes the declared and the projected requests fill'),
    card('Cluster', cluster.nodes + ' nodes', cluster.pods + ' pods reported'));
}
function line(points, color, label) {
  const path = document.createElementNS(SVG, 'polyline');
  path.setAttribute('points', points.map((p) => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join(' '));
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', color);
  path.setAttribute('stroke-width', '2');
  // Requested equals declared until headroom changes a request: dashed, both stay visible.
  if (label === 'requested') path.setAttribute('stroke-dasharray', '6 4');
  const title = document.createElementNS(SVG, 'title');
  title.textContent = label;
  path.appendChild(title);
  return path;
}
function text(x, y, content, anchor) {
  const node = document.createElementNS(SVG, 'text');
  node.setAttribute('x', x);
  node.setAttribute('y', y);
  if (anchor) node.setAttribute('text-anchor', anchor);
  node.textContent = content;
  return node;
}
function chart(svg, history, pick, scale) {
  svg.replaceChildren();
  if (history.length < 2) {
    svg.appendChild(text(300, 110, 'collecting: one point a minute', 'middle'));
    return;
  }
  const series = [
    ['declared', '#b04a4a', (h) => pick(h.declared)],
    ['requested', '#c8a13a', (h) => pick(h.requested)],
    ['projected', '#2f7d4f', (h) => pick(h.projected)],
    ['allocatable', '#888888', (h) => pick(h.allocatable)],
  ];
  const t0 = history[0].at, t1 = history[history.length - 1].at;
  let top = 0;
  for (const h of history) for (const s of series) top = Math.max(top, s[2](h));
  top = top > 0 ? top * 1.1 : 1;
  const x = (t) => 50 + (540 * (t - t0)) / Math.max(1, t1 - t0);
  const y = (v) => 190 - (170 * v) / top;
  svg.appendChild(text(45, 25, (top / scale).toFixed(1), 'end'));
  svg.appendChild(text(45, 194, '0', 'end'));
  svg.appendChild(text(50, 212, new Date(t0 * 1000).toLocaleTimeString()));
  svg.appendChild(text(590, 212, new Date(t1 * 1000).toLocaleTimeString(), 'end'));
  series.forEach((s, i) => {
    svg.appendChild(line(history.map((h) => [x(h.at), y(s[2](h))]), s[1], s[0]));
    const key = text(60 + i * 130, 12, s[0]);
    key.setAttribute('fill', s[1]);
    svg.appendChild(key);
  });
}
function bar(base, headroom, allocatable, over) {
  const box = el('div', null, 'bar' + (over ? ' over' : ''));
  const total = Math.max(allocatable, base + headroom, 1);
  const b = el('span', null, 'base');
  b.style.width = ((100 * base) / total).toFixed(1) + '%';
  const h = el('span', null, 'headroom');
  h.style.width = ((100 * headroom) / total).toFixed(1) + '%';
  box.append(b, h);
  return box;
}
function cell(row, content, cls) {
  const td = el('td', null, cls);
  if (content instanceof Node) td.appendChild(content); else td.textContent = String(content);
  row.appendChild(td);
  return td;
}
function nodes(list) {
  const body = $('nodes').tBodies[0];
  body.replaceChildren();
  for (const n of list) {
    const row = el('tr');
    if (!n.fits || n.cordoned) row.className = 'blocked';
    cell(row, n.name);
    const cpu = el('div');
    cpu.append(bar(n.baseSum.cpuMillis, n.sharedHeadroom.cpuMillis, n.allocatable.cpuMillis, n.projected.cpuMillis > n.allocatable.cpuMillis),
               el('span', cores(n.projected.cpuMillis) + ' / ' + cores(n.allocatable.cpuMillis), 'num'));
    cell(row, cpu);
    const mem = el('div');
    mem.append(bar(n.baseSum.memoryBytes, n.sharedHeadroom.memoryBytes, n.allocatable.memoryBytes, n.projected.memoryBytes > n.allocatable.memoryBytes),
               el('span', bytes(n.projected.memoryBytes) + ' / ' + bytes(n.allocatable.memoryBytes), 'num'));
    cell(row, mem);
    cell(row, cores(n.declared.cpuMillis), 'num');
    cell(row, bytes(n.declared.memoryBytes), 'num');
    cell(row, n.pods, 'num');
    cell(row, n.load.toFixed(2), 'num');
    cell(row, n.cordoned ? 'load-cordoned: ' + n.cordonReason : (n.fits ? 'fits' : 'projection over allocatable'));
    cell(row, duration(n.reportAgeSeconds), 'num');
    body.appendChild(row);
  }
  if (list.length === 0) {
    const row = el('tr');
    const td = cell(row, 'no node has reported yet');
    td.colSpan = 9;
    body.appendChild(row);
  }
}
function namespaces(list) {
  const body = $('namespaces').tBodies[0];
  body.replaceChildren();
  for (const n of list) {
    const row = el('tr');
    cell(row, n.name);
    cell(row, n.excluded ? 'excluded' : n.step + ' (' + n.stepFrom + ')');
    cell(row, n.workloads, 'num');
    cell(row, n.pods, 'num');
    cell(row, cores(n.requested.cpuMillis) + ' / ' + bytes(n.requested.memoryBytes), 'num');
    cell(row, cores(n.recommended.cpuMillis) + ' / ' + bytes(n.recommended.memoryBytes), 'num');
    cell(row, n.excluded ? '' : (n.nextStep || 'at the top'));
    cell(row, cores(n.saves.cpuMillis) + ' / ' + bytes(n.saves.memoryBytes), 'num');
    body.appendChild(row);
  }
}
function setup(s) {
  const body = $('setup').tBodies[0];
  body.replaceChildren();
  const checks = (s && s.checks) || [];
  $('setup').hidden = checks.length === 0;
  $('setup-note').textContent = !s ? 'Not available.' :
    (s.checkedAt ? 'As of ' + s.checkedAt + ' (--setup-check-interval); ' : '') + s.note + '.';
  for (const c of checks) {
    const row = el('tr', undefined, c.result === 'ok' ? '' : 'blocked');
    cell(row, c.name);
    cell(row, c.result, 'result ' + c.result);
    cell(row, c.detail, 'message');
    cell(row, c.fix, 'message');
    body.appendChild(row);
  }
}
function workloads(list, total) {
  $('workload-note').textContent = 'The ' + list.length + ' largest of ' + total +
    ' workloads by declared CPU. "headroom per pod" is what the admission webhook would give a new replica now, through the guard rails.';
  const body = $('workloads').tBodies[0];
  body.replaceChildren();
  for (const w of list) {
    const row = el('tr');
    cell(row, w.key);
    cell(row, w.replicas, 'num');
    cell(row, cores(w.declared.cpuMillis) + ' / ' + bytes(w.declared.memoryBytes), 'num');
    cell(row, cores(w.recommended.cpuMillis) + ' / ' + bytes(w.recommended.memoryBytes), 'num');
    cell(row, duration(w.historySeconds), 'num');
    cell(row, w.oomKilled ? 'yes' : '');
    cell(row, w.sizing);
    const last = w.actions.length ? w.actions[0].action + ' ' + w.actions[0].outcome + ': ' + w.actions[0].message : '';
    cell(row, last, 'message');
    body.appendChild(row);
  }
}
function render(status) {
  $('generated').textContent = 'as of ' + status.generatedAt + (status.apiConnected ? '' : ' (no Kubernetes API: declared = requested)');
  cards(status.cluster);
  chart($('chart-cpu'), status.history, (a) => a.cpuMillis, 1000);
  chart($('chart-memory'), status.history, (a) => a.memoryBytes, 1073741824);
  nodes(status.nodes);
  namespaces(status.namespaces || []);
  setup(status.setup);
  workloads(status.workloads, status.workloadsTotal);
  $('error').hidden = true;
}
function refresh() {
  fetch('/api/v1/status', { cache: 'no-store' })
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then(render)
    .catch((e) => { const box = $('error'); box.textContent = 'cannot read /api/v1/status: ' + e.message; box.hidden = false; });
}
refresh();
setInterval(refresh, 30000);
)JS";

constexpr char kStyle[] =
    R"CSS(:root { font-family: system-ui, sans-serif; color: #1d2329; background: #f6f7f8; }
body { margin: 0; }
header { display: flex; align-items: baseline; gap: 1em; padding: 0.8em 1.5em; background: #1d2329; color: #fff; }
header h1 { margin: 0; font-size: 1.4em; }
main { padding: 1em 1.5em; max-width: 1400px; }
h2 { font-size: 1.1em; margin: 1.4em 0 0.3em; }
.note { color: #5a646e; font-size: 0.85em; margin: 0 0 0.6em; }
.error { background: #fbe3e3; color: #8a1f1f; padding: 0.6em; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 0.8em; }
.card { background: #fff; border: 1px solid #dde1e5; border-radius: 6px; padding: 0.6em 0.9em; }
.card h3 { margin: 0; font-size: 0.85em; color: #5a646e; font-weight: 600; }
.card .big { font-size: 1.8em; margin: 0.1em 0; font-weight: 600; }
.card.good .big { color: #2f7d4f; }
.card .detail { margin: 0; font-size: 0.8em; color: #5a646e; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 0.8em; }
figure { margin: 0; background: #fff; border: 1px solid #dde1e5; border-radius: 6px; padding: 0.5em; }
figcaption { font-size: 0.85em; color: #5a646e; }
svg { width: 100%; height: auto; font-size: 11px; fill: #5a646e; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 0.85em; }
th, td { text-align: left; padding: 0.35em 0.6em; border-bottom: 1px solid #e6e9ec; vertical-align: middle; }
th { background: #eef0f2; font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
td:first-child { white-space: nowrap; }
td.message { max-width: 36em; overflow-wrap: anywhere; color: #5a646e; }
tr.blocked td:first-child { border-left: 4px solid #b04a4a; }
.bar { display: inline-flex; width: 140px; height: 10px; border: 1px solid #9aa3ab; margin-right: 0.5em; vertical-align: middle; background: #fff; }
.bar.over { border-color: #b04a4a; }
.bar .base { background: #2f7d4f; }
.bar .headroom { background: #9fd1b1; }
td.result { font-weight: 600; }
td.result.ok { color: #2f7d4f; }
td.result.warn { color: #9a6a00; }
td.result.fail { color: #b04a4a; }
)CSS";

}  // namespace

absl::string_view StatusPageHtml() { return kHtml; }
absl::string_view StatusPageScript() { return kScript; }
absl::string_view StatusPageStyle() { return kStyle; }

}  // namespace headroom::extender

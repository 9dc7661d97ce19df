// paddock's only hand-written script: theme choice, relative times, the
// websocket "reconnecting…" banner and keeping the newest message in view.
// Everything else is server-rendered HTML driven by htmx.
(function () {
  "use strict";
  var root = document.documentElement;
  var stored = null;
  try { stored = localStorage.getItem("paddock-theme"); } catch (e) { /* private mode */ }
  if (stored === "light" || stored === "dark") { root.setAttribute("data-theme", stored); }

  function toggleTheme() {
    var next = root.getAttribute("data-theme") === "light" ? "dark" : "light";
    root.setAttribute("data-theme", next);
    try { localStorage.setItem("paddock-theme", next); } catch (e) { /* ignore */ }
  }

  function ago(iso) {
    var t = Date.parse(iso);
    if (isNaN(t)) { return ""; }
    var s = Math.max(0, Math.round((Date.now() - t) / 1000));
    if (s < 45) { return "just now"; }
    var m = Math.round(s / 60);
    if (m < 60) { return m + " min ago"; }
    var h = Math.round(m / 60);
    if (h < 24) { return h + " h ago"; }
    var d = Math.round(h / 24);
    if (d < 60) { return d + " d ago"; }
    return new Date(t).toLocaleDateString();
  }

  function refreshTimes(scope) {
    var els = (scope || document).querySelectorAll("time[data-rel]");
    for (var i = 0; i < els.length; i++) {
      var txt = ago(els[i].getAttribute("datetime"));
      if (txt) { els[i].textContent = txt; }
    }
  }

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
  }
  function toBottom() { window.scrollTo(0, document.body.scrollHeight); }

  function banner(show) {
    var b = document.getElementById("reconnecting");
    if (b) { b.hidden = !show; }
  }

  // The board's filters: they hide the cards that do not match (the
  // "needs you" strip is never filtered), also in every board the
  // websocket pushes, and keep the choice in the address.
  function filterForm() { return document.querySelector("[data-filters]"); }
  function applyFilters() {
    var f = filterForm();
    if (!f) { return; }
    var agent = f.elements.agent.value, project = f.elements.project.value, live = f.elements.live.value;
    var hidden = 0;
    document.querySelectorAll('#board > [data-testid="card"]').forEach(function (c) {
      var hide = (agent && c.dataset.runtime !== agent) || (project && c.dataset.project !== project) ||
        (live === "1" && c.dataset.live !== "1");
      c.hidden = !!hide;
      if (hide) { hidden++; }
    });
    var note = f.querySelector("[data-filter-note]");
    if (note) {
      note.hidden = hidden === 0;
      note.textContent = hidden + (hidden === 1 ? " session hidden" : " sessions hidden");
    }
  }
  function initFilters() {
    var f = filterForm();
    if (!f) { return; }
    var q = new URLSearchParams(location.search);
    ["agent", "project", "live"].forEach(function (n) {
      var v = q.get(n);
      if (v === null) { return; }
      var sel = f.elements[n];
      if (!Array.prototype.some.call(sel.options, function (o) { return o.value === v; })) {
        sel.add(new Option(v, v)); // chosen before its sessions appeared
      }
      sel.value = v;
    });
    f.addEventListener("change", function () {
      var p = new URLSearchParams();
      ["agent", "project", "live"].forEach(function (n) { if (f.elements[n].value) { p.set(n, f.elements[n].value); } });
      var s = p.toString();
      history.replaceState(null, "", location.pathname + (s ? "?" + s : ""));
      applyFilters();
    });
    f.addEventListener("submit", function (ev) { ev.preventDefault(); });
    applyFilters();
  }

  var stick = true;
  document.addEventListener("DOMContentLoaded", function () {
    refreshTimes();
    setInterval(refreshTimes, 30000);
    var t = document.querySelector("[data-theme-toggle]");
    if (t) { t.addEventListener("click", toggleTheme); }
    if (document.getElementById("messages")) { toBottom(); }
    initFilters();
  });
  window.addEventListener("scroll", function () { stick = nearBottom(); }, { passive: true });
  document.addEventListener("htmx:wsOpen", function () { banner(false); });
  document.addEventListener("htmx:wsClose", function () { banner(true); });
  document.addEventListener("htmx:wsError", function () { banner(true); });
  document.addEventListener("htmx:oobAfterSwap", function (ev) {
    refreshTimes(ev.detail && ev.detail.target);
    var tgt = ev.detail && ev.detail.target;
    if (tgt && tgt.id === "messages" && stick) { toBottom(); }
    if (tgt && tgt.id === "board") { applyFilters(); }
  });
  document.addEventListener("htmx:afterSwap", function (ev) { refreshTimes(ev.detail && ev.detail.target); });
  // A message that reached the agent leaves the box empty for the next.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail && ev.detail.elt;
    if (form && form.matches && form.matches('[data-testid="send-form"]') && ev.detail.successful &&
        document.querySelector('#send-result [data-testid="result-ok"]')) {
      form.reset();
    }
  });
})();

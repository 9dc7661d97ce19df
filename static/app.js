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

  var stick = true;
  document.addEventListener("DOMContentLoaded", function () {
    refreshTimes();
    setInterval(refreshTimes, 30000);
    var t = document.querySelector("[data-theme-toggle]");
    if (t) { t.addEventListener("click", toggleTheme); }
    if (document.getElementById("messages")) { toBottom(); }
  });
  window.addEventListener("scroll", function () { stick = nearBottom(); }, { passive: true });
  document.addEventListener("htmx:wsOpen", function () { banner(false); });
  document.addEventListener("htmx:wsClose", function () { banner(true); });
  document.addEventListener("htmx:wsError", function () { banner(true); });
  document.addEventListener("htmx:oobAfterSwap", function (ev) {
    refreshTimes(ev.detail && ev.detail.target);
    var tgt = ev.detail && ev.detail.target;
    if (tgt && tgt.id === "messages" && stick) { toBottom(); }
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

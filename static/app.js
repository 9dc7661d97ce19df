// paddock's only hand-written script: theme choice, relative times, the
// websocket's reconnecting and stale state, and keeping the newest
// message in view.
// Everything else is server-rendered HTML driven by htmx.
(function () {
  "use strict";
  var root = document.documentElement;

  // The theme is the device's choice, kept by the server (the page comes
  // with data-theme when there is one); without it the page follows the
  // system setting (CSS). A change applies at once and is then stored.
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || ""; } catch (e) { return ""; }
  }
  function setTheme(v) {
    if (v === "light" || v === "dark") { root.setAttribute("data-theme", v); } else { root.removeAttribute("data-theme"); }
    var choice = document.querySelector("[data-theme-choice]");
    if (choice) { choice.value = v; }
    fetch("/settings/theme", { method: "POST", credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
      body: "theme=" + encodeURIComponent(v) }).catch(function () { /* offline: shown now, stored next time */ });
  }
  // The top bar's toggle flips what is shown now.
  function toggleTheme() {
    var now = root.getAttribute("data-theme") ||
      (window.matchMedia && matchMedia("(prefers-color-scheme: light)").matches ? "light" : "dark");
    setTheme(now === "light" ? "dark" : "light");
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

  // While the websocket is down the page is stale: what it shows may have
  // been answered elsewhere, so its buttons are switched off (and
  // switched back on by the snapshot of the next connection) and a
  // request that still gets through is refused here with a reason,
  // never queued for later.
  var stale = false;
  function banner(show, text) {
    var b = document.getElementById("reconnecting");
    if (b) {
      b.hidden = !show;
      b.textContent = text || (root.hasAttribute("data-offline") ? "Offline: the board as it was last seen. It is stale; actions are off." :
        "reconnecting… (the page is stale; actions are off until it is live)");
    }
  }
  function setStale(on) {
    // Each failed retry closes again: the banner keeps what it says (a
    // "Not sent" notice must outlive the next retry).
    var again = on && stale;
    stale = on;
    if (on) { root.setAttribute("data-stale", ""); } else { root.removeAttribute("data-stale"); }
    var els = document.querySelectorAll(on ? "main button:not([disabled]), main input[type=submit]:not([disabled])" : "[data-stale-off]");
    for (var i = 0; i < els.length; i++) {
      els[i].disabled = on;
      if (on) { els[i].setAttribute("data-stale-off", ""); } else { els[i].removeAttribute("data-stale-off"); }
    }
    if (!again) { banner(on); }
  }

  // Reconnecting: the websocket extension retries only some close codes
  // (1006, 1011–1013) and backs off up to a minute. A phone coming back
  // from sleep or a restarted paddock should be live again within
  // seconds, so the delay is capped at 5 s, and the codes the extension
  // gives up on (a proxy's 1000/1001, an older paddock) are retried here.
  // 1008 means this device was signed out: the page reloads to pairing.
  var retried = [1006, 1011, 1012, 1013];
  var tries = 0;
  function backoff(n) { return Math.min(250 * Math.pow(2, n), 5000) * (0.5 + Math.random() / 2); }
  function onClose(ev) {
    setStale(true);
    var d = ev.detail || {};
    var code = d.event && d.event.code;
    if (code === 1008) { setTimeout(function () { location.reload(); }, 500); return; }
    if (retried.indexOf(code) >= 0 || !d.socketWrapper) { return; }
    setTimeout(function () { d.socketWrapper.reconnect(); }, backoff(tries++));
  }

  // The board's filters are the page's address (the server filters and
  // pages): a change loads the board they name. Delegated: the form comes
  // again with every whole board the websocket sends.
  function initFilters() {
    function load(f) {
      var p = new URLSearchParams();
      ["agent", "project", "live", "q"].forEach(function (n) {
        var v = f.elements[n] && f.elements[n].value.trim();
        if (v) { p.set(n, v); }
      });
      var q = p.toString();
      location.assign(location.pathname + (q ? "?" + q : ""));
    }
    // A select loads on change; the search box on Enter (the form's
    // submit), so typing does not reload the board at every letter.
    document.addEventListener("change", function (ev) {
      var f = ev.target && ev.target.closest && ev.target.closest("[data-filters]");
      if (f && ev.target.name !== "q") { load(f); }
    }, true);
    document.addEventListener("submit", function (ev) {
      if (ev.target && ev.target.matches && ev.target.matches("[data-filters]")) { ev.preventDefault(); load(ev.target); }
    });
  }

  // Cards the websocket moved or added arrive in the board's inbox, each
  // with the card it now follows ("" for the first place): they go there,
  // replacing the card's old place.
  function placeInbox(inbox) {
    var board = document.getElementById("board");
    var items = Array.prototype.slice.call(inbox.children);
    items.forEach(function (wrap) {
      var card = wrap.firstElementChild;
      inbox.removeChild(wrap);
      if (!board || !card) { return; }
      var old = card.id && board.querySelector(':scope > [id="' + card.id + '"]');
      if (old) { old.remove(); }
      var after = wrap.getAttribute("data-after");
      var ref = after ? board.querySelector(':scope > [id="' + after + '"]') : null;
      if (ref) { ref.after(card); return; }
      var first = board.querySelector(':scope > [data-testid="card"]');
      if (!after && first) { first.before(card); } else { board.append(card); }
      var empty = board.querySelector(':scope > [data-testid="empty"]');
      if (empty) { empty.remove(); }
    });
  }

  // The count of what waits for the user, from the "needs you" strip where
  // the page has one: in the title, on the top bar's inbox link, and on
  // the installed app's icon where the platform has badges.
  var baseTitle = document.title;
  function countNeeds() {
    var strip = document.getElementById("needs-you");
    if (!strip) { return; }
    var n = strip.hidden ? 0 : strip.querySelectorAll('[data-testid="approval"]:not(.resolved), [data-testid="card"]').length;
    document.title = (n ? "(" + n + ") " : "") + baseTitle;
    var c = document.querySelector("[data-inbox-count]");
    if (c) { c.textContent = n ? String(n) : ""; }
    if (navigator.setAppBadge) {
      (n ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(function () { /* not installed */ });
    }
  }

  // The new-session form offers each agent's own permission modes and
  // effort levels: only the chosen agent's group shows, a choice from
  // another agent's is cleared, and a field the agent lacks is hidden.
  function initAgentChoice() {
    var agent = document.querySelector('[data-testid="agent-choice"]');
    if (!agent) { return; }
    function apply() {
      document.querySelectorAll("select[data-per-agent]").forEach(function (sel) {
        var any = false;
        sel.querySelectorAll("optgroup").forEach(function (g) {
          var mine = g.getAttribute("data-runtime") === agent.value;
          g.hidden = !mine;
          g.disabled = !mine;
          any = any || mine;
        });
        var opt = sel.selectedOptions[0];
        if (opt && opt.parentElement.tagName === "OPTGROUP" && opt.parentElement.disabled) { sel.value = ""; }
        sel.closest("[data-per-agent-field]").hidden = !any;
      });
    }
    agent.addEventListener("change", apply);
    apply();
  }

  // Notifications (the settings page): subscribe this browser with
  // paddock's VAPID key and the form's preferences, send a test, or turn
  // them off. The request carries the page's CSRF token like htmx does.
  function csrfHeaders() {
    var h = { "Content-Type": "application/json" };
    try { Object.assign(h, JSON.parse(document.body.getAttribute("hx-headers") || "{}")); } catch (e) { /* none */ }
    return h;
  }
  function b64url(s) {
    var pad = "=".repeat((4 - s.length % 4) % 4);
    var raw = atob((s + pad).replace(/-/g, "+").replace(/_/g, "/"));
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  // The certificate page says whether this device trusts paddock: an
  // image on the dashboard's HTTPS address loads only if it does. It looks
  // again when the user comes back from the phone's settings.
  function initTrustCheck() {
    var el = document.querySelector("[data-trust-check]");
    if (!el) { return; }
    var url = el.getAttribute("data-trust-check"), trusted = false;
    function check() {
      if (trusted) { return; }
      var img = new Image();
      img.onload = function () {
        trusted = true;
        el.textContent = "This device trusts paddock: the dashboard opens without a warning.";
        el.className = "trust ok";
        el.setAttribute("data-trusted", "yes");
      };
      img.onerror = function () {
        el.textContent = "This device does not trust paddock yet (or cannot reach it): follow the steps below, then come back.";
        el.className = "trust no";
        el.setAttribute("data-trusted", "no");
      };
      img.src = url + "?check=" + Date.now();
    }
    check();
    setInterval(check, 5000);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) { check(); } });
  }

  // An action htmx sent that the server refused (bad input, an item
  // already answered, …) says why in the flash, a line over the page;
  // the part of the page it would have replaced stays as it was.
  function initFlash() {
    var flash = document.getElementById("flash");
    if (!flash) { return; }
    var timer = null;
    function show(text) {
      flash.textContent = text;
      flash.hidden = false;
      clearTimeout(timer);
      timer = setTimeout(function () { flash.hidden = true; }, 10000);
    }
    flash.addEventListener("click", function () { flash.hidden = true; });
    document.addEventListener("htmx:responseError", function (ev) {
      var xhr = ev.detail.xhr, text = "";
      try {
        var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
        var p = doc.querySelector("[data-error-status], [data-testid=error] p");
        text = p ? p.textContent.trim() : "";
      } catch (e) { /* not HTML */ }
      show(text || ("The request failed (" + xhr.status + ")."));
    });
  }

  // Review from the phone: a tap on a line of a diff opens a comment box
  // under it; the panel's form carries every comment (its line, the line
  // quoted, the text) and Send review sends them as one message.
  function initReview() {
    function panelOf(el) { var list = el.closest(".activity-list"); return list && list.parentNode; }
    function sync(panel) {
      if (!panel) { return; }
      var form = panel.querySelector("[data-review-form]");
      if (!form) { return; }
      var fields = form.querySelector("[data-review-fields]");
      fields.textContent = "";
      var n = 0;
      panel.querySelectorAll(".review-box").forEach(function (box) {
        var text = box.querySelector("textarea").value.trim();
        var line = box.previousElementSibling;
        if (!text || !line) { return; }
        n++;
        [["ref", line.getAttribute("data-ref")], ["quote", line.textContent.replace(/\n$/, "").slice(1).trim()], ["comment", text]].forEach(function (f) {
          var i = document.createElement("input");
          i.type = "hidden"; i.name = f[0]; i.value = f[1];
          fields.append(i);
        });
      });
      form.hidden = n === 0;
      form.querySelector("[data-review-count]").textContent = n === 1 ? "1 comment" : n + " comments";
    }
    document.addEventListener("click", function (ev) {
      var t = ev.target;
      var line = t.closest && t.closest("pre.diff[data-review] .dl[data-ref]");
      if (line) {
        var next = line.nextElementSibling;
        if (next && next.classList.contains("review-box")) { next.querySelector("textarea").focus(); return; }
        var box = document.createElement("span");
        box.className = "review-box";
        var ta = document.createElement("textarea");
        ta.rows = 2; ta.maxLength = 2000;
        ta.setAttribute("aria-label", "Comment on " + line.getAttribute("data-ref"));
        ta.setAttribute("data-testid", "review-comment");
        var rm = document.createElement("button");
        rm.type = "button"; rm.textContent = "Remove comment"; rm.setAttribute("data-review-remove", "");
        box.append(ta, rm);
        line.after(box);
        line.classList.add("commented");
        ta.focus();
        return;
      }
      var remove = t.closest && t.closest("[data-review-remove]");
      if (remove) {
        var b = remove.parentNode, panel = panelOf(b);
        if (b.previousElementSibling) { b.previousElementSibling.classList.remove("commented"); }
        b.remove();
        sync(panel);
      }
    });
    document.addEventListener("input", function (ev) {
      if (ev.target.closest && ev.target.closest(".review-box")) { sync(panelOf(ev.target)); }
    });
    // A review delivered: its comments are done with (one that was not
    // keeps them, to send again).
    document.addEventListener("htmx:afterRequest", function (ev) {
      var form = ev.target;
      if (!form.matches || !form.matches("[data-review-form]") || !ev.detail.successful) { return; }
      if ((ev.detail.xhr.responseText || "").indexOf('data-testid="result-ok"') < 0) { return; }
      var panel = form.parentNode;
      panel.querySelectorAll(".review-box").forEach(function (b) {
        if (b.previousElementSibling) { b.previousElementSibling.classList.remove("commented"); }
        b.remove();
      });
      sync(panel);
    });
  }

  function initPush() {
    var form = document.querySelector("[data-push-form]");
    if (!form) { return; }
    var say = function (t) { form.querySelector("[data-push-result]").textContent = t; };
    var ios = /iPad|iPhone|iPod/.test(navigator.userAgent) && !window.navigator.standalone;
    var supported = "serviceWorker" in navigator && "PushManager" in window && window.isSecureContext;
    if (ios && !supported) { document.querySelector("[data-push-ios]").hidden = false; }
    if (!supported) {
      form.querySelector("[data-push-enable]").disabled = true;
      say(ios ? "Add paddock to the Home Screen first (see above)." :
        "This browser cannot receive notifications here (it needs a trusted https page and Web Push).");
      return;
    }
    function prefs() {
      var el = form.elements;
      var boxes = Array.prototype.slice.call(form.querySelectorAll('input[name="agent"]'));
      var agents = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      var p = { approvals: el.approvals.checked, questions: el.questions.checked, turns: el.turns.checked, errors: el.errors.checked,
        hide_details: el.hide_details.checked, delay_seconds: parseInt(el.delay_seconds.value, 10) || 0,
        // Every agent checked is "all": an agent added later is included.
        agents: agents.length === boxes.length ? [] : agents,
        mute_projects: el.mute_projects.value.split(",").map(function (x) { return x.trim(); }).filter(Boolean),
        quiet_from: el.quiet_from.value, quiet_to: el.quiet_to.value };
      try { p.tz = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { p.tz = ""; }
      return p;
    }
    form.querySelector("[data-push-enable]").addEventListener("click", function () {
      say("Asking…");
      Notification.requestPermission().then(function (perm) {
        if (perm !== "granted") { throw new Error("notifications are blocked for this site in the browser's settings"); }
        return Promise.all([navigator.serviceWorker.ready, fetch("/api/v1/push/key").then(function (r) { return r.json(); })]);
      }).then(function (got) {
        return got[0].pushManager.getSubscription().then(function (old) {
          return old || got[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64url(got[1].public_key) });
        });
      }).then(function (sub) {
        var body = sub.toJSON();
        body.prefs = prefs();
        if (!form.querySelector('input[name="agent"]:checked')) { throw new Error("choose at least one agent"); }
        return fetch("/api/v1/push/subscriptions", { method: "POST", headers: csrfHeaders(), body: JSON.stringify({ endpoint: body.endpoint, keys: body.keys, prefs: body.prefs }) });
      }).then(function (r) {
        if (!r.ok) { return r.json().then(function (e) { throw new Error((e.error && e.error.message) || r.status); }); }
        say("Saved: this device gets notifications.");
        form.querySelector("[data-push-test]").disabled = false;
        form.querySelector("[data-push-disable]").disabled = false;
      }).catch(function (e) { say("Not turned on: " + e.message); });
    });
    form.querySelector("[data-push-test]").addEventListener("click", function () {
      fetch("/api/v1/push/test", { method: "POST", headers: csrfHeaders() }).then(function (r) { return r.json(); })
        .then(function (j) { say(j.sent ? "Sent: it should arrive in a moment." : "Not sent: turn notifications on first."); })
        .catch(function () { say("Not sent: paddock could not be reached."); });
    });
    form.querySelector("[data-push-disable]").addEventListener("click", function () {
      navigator.serviceWorker.ready.then(function (reg) { return reg.pushManager.getSubscription(); }).then(function (sub) {
        if (!sub) { return; }
        return fetch("/api/v1/push/subscriptions", { method: "DELETE", headers: csrfHeaders(), body: JSON.stringify({ endpoint: sub.endpoint }) })
          .then(function () { return sub.unsubscribe(); });
      }).then(function () { say("Turned off on this device."); }).catch(function (e) { say("Not turned off: " + e.message); });
    });
  }

  var stick = true;
  var pinned = null; // the id of the element the page opened on
  function keepPinned() {
    var el = pinned && document.getElementById(pinned);
    if (el) { el.scrollIntoView({ block: "start" }); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    // htmx is deferred: it exists now, before it opens the websocket.
    if (window.htmx) { htmx.config.wsReconnectDelay = backoff; }
    refreshTimes();
    setInterval(refreshTimes, 30000);
    var t = document.querySelector("[data-theme-toggle]");
    if (t) { t.addEventListener("click", toggleTheme); }
    var choice = document.querySelector("[data-theme-choice]");
    if (choice) { choice.addEventListener("change", function () { setTheme(choice.value); }); }
    // A session page opens where the user is needed: on the element the
    // address names (a link to one approval), else on the first prompt
    // still waiting for an answer, else at the newest message.
    var target = null;
    try { target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null; } catch (e) { /* bad hash */ }
    target = target || document.querySelector('#session-head [data-testid="approval"]:not(.resolved)');
    if (target && target.id) {
      pinned = target.id;
      target.scrollIntoView({ block: "start" });
      stick = false;
      // Older messages load below the card and the browser's scroll
      // anchoring would carry the view away with them: the card stays in
      // view until the user scrolls on their own.
      ["touchstart", "wheel", "keydown", "mousedown"].forEach(function (n) {
        window.addEventListener(n, function () { pinned = null; }, { once: true, passive: true });
      });
    } else if (document.getElementById("messages")) { toBottom(); }
    initFilters();
    initAgentChoice();
    initPush();
    initReview();
    initFlash();
    initTrustCheck();
    countNeeds();
    // The installed app's worker (a secure page only): offline, the last
    // board seen opens, marked stale.
    if ("serviceWorker" in navigator && window.isSecureContext) {
      navigator.serviceWorker.register("/sw.js").catch(function () { /* the page works without it */ });
    }
    // Forgetting this device forgets the board kept for offline too.
    var out = document.querySelector('[data-testid="logout"]');
    if (out && window.caches) {
      out.form.addEventListener("submit", function () { caches.delete("paddock-pages"); });
    }
    if (root.hasAttribute("data-offline")) { setStale(true); }
  });
  window.addEventListener("scroll", function () { stick = nearBottom(); }, { passive: true });
  document.addEventListener("htmx:wsOpen", function () { tries = 0; });
  // A reader scrolled into the board keeps their place: when a live frame
  // opens the strip, or moves a card, above the cards on screen, the page
  // scrolls by as much, so what they read stays put. The cards that did
  // not move agree on how far the rest did (the moved card is outvoted).
  // At the top of the page an update shows where it lands.
  var onScreen = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    onScreen = null;
    var board = document.getElementById("board");
    if (!board || window.scrollY <= 0) { return; }
    onScreen = {};
    board.querySelectorAll('[data-testid="card"]').forEach(function (c) {
      var r = c.getBoundingClientRect();
      if (c.id && r.bottom > 0 && r.top < window.innerHeight) { onScreen[c.id] = r.top; }
    });
  });
  function keepPlace() {
    if (!onScreen) { return; }
    var votes = {}, best = 0, shift = 0;
    Object.keys(onScreen).forEach(function (id) {
      var c = document.getElementById(id);
      if (!c) { return; }
      var d = Math.round(c.getBoundingClientRect().top - onScreen[id]);
      votes[d] = (votes[d] || 0) + 1;
      if (votes[d] > best) { best = votes[d]; shift = d; }
    });
    onScreen = null;
    if (shift !== 0) { window.scrollBy(0, shift); }
  }
  // The first frame after a (re)connect is the snapshot: only then is the
  // page live again.
  document.addEventListener("htmx:wsAfterMessage", function () {
    keepPlace();
    if (stale) { root.removeAttribute("data-offline"); setStale(false); }
  });
  document.addEventListener("htmx:wsClose", onClose);
  document.addEventListener("htmx:wsError", function () { setStale(true); });
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var verb = ev.detail && ev.detail.requestConfig && ev.detail.requestConfig.verb;
    if (stale && verb && verb !== "get") {
      ev.preventDefault();
      banner(true, "Not sent: paddock is unreachable. Try again once the page is live.");
    }
  });
  document.addEventListener("htmx:sendError", function () {
    banner(true, "Not sent: paddock could not be reached. Nothing was queued; try again.");
  });
  document.addEventListener("htmx:oobAfterSwap", function (ev) {
    refreshTimes(ev.detail && ev.detail.target);
    var tgt = ev.detail && ev.detail.target;
    if (tgt && tgt.id === "messages" && stick) { toBottom(); }
    if (tgt && tgt.id === "board-inbox") { placeInbox(tgt); }
    countNeeds();
    keepPinned();
  });
  document.addEventListener("htmx:afterSwap", function (ev) { refreshTimes(ev.detail && ev.detail.target); keepPinned(); });
  // A message that reached the agent leaves the box empty for the next.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail && ev.detail.elt;
    if (form && form.matches && form.matches('[data-testid="send-form"]') && ev.detail.successful &&
        document.querySelector('#send-result [data-testid="result-ok"]')) {
      form.reset();
    }
  });
})();

// paddock's service worker. It makes the installed app open without the
// network: the content-hashed assets are cached for good (a changed file
// has a new URL), the board is kept as it was last seen and shown, marked
// stale, when paddock cannot be reached, and any other page falls back to
// a short "not reachable" page. Nothing else is cached: no API answer, no
// session page, no action. Start-up fills in VERSION and ASSETS.
"use strict";
var VERSION = "__VERSION__";
var ASSETS = __ASSETS__;
var SHELL = "paddock-shell-" + VERSION;
var PAGES = "paddock-pages";

self.addEventListener("install", function (ev) {
  ev.waitUntil(caches.open(SHELL).then(function (c) { return c.addAll(ASSETS); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (ev) {
  ev.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("paddock-shell-") === 0 && k !== SHELL; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// offline is the page shown for anything but the board while paddock is
// unreachable.
function offline() {
  var css = ASSETS.filter(function (u) { return /\/app\.css$/.test(u); })[0] || "";
  return new Response('<!DOCTYPE html><html lang="en" data-stale data-offline><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline · paddock</title>' +
    '<link rel="stylesheet" href="' + css + '"></head><body><div class="banner" role="status">Offline: paddock cannot be reached.</div>' +
    '<main><p>This phone cannot reach paddock right now. Check that it runs and that this phone is on its network, then ' +
    '<a class="btn" href="/">open the board again</a>.</p></main></body></html>',
  { status: 503, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}

// stale marks a kept board as what it is: the last one seen.
function stale(resp) {
  return resp.text().then(function (html) {
    html = html.replace("<html lang=\"en\"", "<html lang=\"en\" data-stale data-offline")
      .replace(/<div id="reconnecting" class="banner" role="status" hidden>[^<]*<\/div>/,
        '<div id="reconnecting" class="banner" role="status">Offline: the board as it was last seen. It is stale; actions are off.</div>');
    return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
  });
}

self.addEventListener("fetch", function (ev) {
  var req = ev.request;
  var url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) { return; }
  if (url.pathname.indexOf("/static/") === 0) {
    ev.respondWith(caches.match(req).then(function (hit) {
      return hit || fetch(req).then(function (resp) {
        if (resp.ok) {
          var copy = resp.clone();
          caches.open(SHELL).then(function (c) { c.put(req, copy); });
        }
        return resp;
      });
    }));
    return;
  }
  if (req.mode !== "navigate") { return; }
  if (url.pathname === "/" && url.search === "") {
    ev.respondWith(fetch(req).then(function (resp) {
      if (resp.ok && !resp.redirected) {
        var copy = resp.clone();
        caches.open(PAGES).then(function (c) { c.put("/", copy); });
      } else if (resp.redirected) {
        caches.delete(PAGES); // signed out: keep no board
      }
      return resp;
    }).catch(function () {
      return caches.open(PAGES).then(function (c) { return c.match("/"); }).then(function (hit) { return hit ? stale(hit) : offline(); });
    }));
    return;
  }
  ev.respondWith(fetch(req).catch(offline));
});

// A notification from paddock: an item waiting (with Approve and Deny
// where the platform has actions), or the close of one resolved anywhere.
self.addEventListener("push", function (ev) {
  var m = {};
  try { m = ev.data ? ev.data.json() : {}; } catch (e) { /* not paddock's */ }
  if (m.type === "close") {
    ev.waitUntil(self.registration.getNotifications({ tag: m.tag }).then(function (shown) {
      shown.forEach(function (n) { n.close(); });
    }));
    return;
  }
  var icon = ASSETS.filter(function (u) { return /icon-192\.png$/.test(u); })[0];
  var opts = { body: m.body || "", tag: m.tag || "paddock", renotify: true, icon: icon, badge: icon,
    data: { url: m.url || "/", item: m.item, device: m.device, cap: m.cap } };
  if (m.actions && m.cap) { opts.actions = m.actions; }
  ev.waitUntil(self.registration.showNotification(m.title || "paddock", opts));
});

// A tap opens the session on the item; Approve or Deny decide it from the
// notification (the capability is the credential: no cookie is sent), and
// say so when paddock refuses.
self.addEventListener("notificationclick", function (ev) {
  var d = ev.notification.data || {};
  ev.notification.close();
  if ((ev.action === "allow" || ev.action === "deny") && d.cap) {
    ev.waitUntil(fetch("/push/act", {
      method: "POST", credentials: "omit", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ item: d.item, device: d.device, verb: ev.action, cap: d.cap })
    }).then(function (r) { return r.ok; }, function () { return false; }).then(function (ok) {
      if (!ok) {
        return self.registration.showNotification("paddock", { body: "Not decided from the notification: open paddock to answer.", tag: d.item, data: { url: d.url } });
      }
    }));
    return;
  }
  var target = new URL(d.url || "/", self.location.origin).href;
  ev.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (open) {
    for (var i = 0; i < open.length; i++) {
      if ("navigate" in open[i]) { return open[i].navigate(target).then(function (c) { return c && c.focus(); }); }
    }
    return self.clients.openWindow(target);
  }));
});

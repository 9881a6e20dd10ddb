// hitl inbox's service worker: it keeps the inbox's shell (a page that says the server cannot
// be reached, the style, the icon) so that the installed app opens offline and says so, and it
// shows web push notifications. A notification of an approval has Approve and Reject buttons:
// a button posts the notification's single-use action token to the server, which answers for
// its person on this device; clicking the notification itself opens the inquiry's form.
'use strict';

var CACHE = 'hitl-shell-v1';
var OFFLINE = '/static/offline.html';
var SHELL = [OFFLINE, '/static/app.css', '/static/icon.svg', '/manifest.webmanifest'];

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(CACHE).then(function (c) { return c.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// Pages always come from the server (they are private and live); only when it cannot be
// reached does the shell stand in. The shell's own files are refreshed whenever they load.
self.addEventListener('fetch', function (event) {
  var req = event.request;
  if (req.method !== 'GET') return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    event.respondWith(fetch(req).catch(function () { return caches.match(OFFLINE); }));
    return;
  }
  if (SHELL.indexOf(url.pathname) >= 0) {
    event.respondWith(fetch(req).then(function (res) {
      if (res.ok) {
        var copy = res.clone();
        caches.open(CACHE).then(function (c) { c.put(req, copy); });
      }
      return res;
    }).catch(function () { return caches.match(req); }));
  }
});

function show(m) {
  return self.registration.showNotification(m.title, {
    body: m.body,
    tag: m.tag, // a later message of the same inquiry replaces this one
    renotify: m.reason !== 'resolved',
    icon: '/icons/icon-192.png',
    badge: '/icons/icon-192.png',
    actions: m.actions || [],
    requireInteraction: !!(m.actions && m.actions.length),
    data: m
  });
}

self.addEventListener('push', function (event) {
  var m;
  try { m = event.data.json(); } catch (e) { return; }
  if (!m || !m.title) return;
  event.waitUntil(show(m));
});

// act runs what a click on a notification does: a button answers through the action token
// (POST, never GET); the notification itself opens the inquiry's form. It resolves to what
// the server said, for the page that asked (see the message handler).
function act(m, action) {
  if (action && m.action_token && m.action_url) {
    return fetch(m.action_url, {
      method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: m.action_token, action: action })
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        var note = res.ok
          ? { title: body.title || 'Answered', body: body.message || '' }
          : { title: 'Not answered', body: (body.detail || 'The server refused the answer.') + ' Open the inquiry to answer it.' };
        return self.registration.showNotification(note.title, { body: note.body, tag: m.tag, data: { url: m.url, tag: m.tag } })
          .then(function () { return { ok: res.ok, status: res.status, body: body }; });
      });
    }, function () {
      return self.registration.showNotification('Not answered', { body: 'The server cannot be reached. Open the inquiry to answer it later.', tag: m.tag, data: { url: m.url, tag: m.tag } })
        .then(function () { return { ok: false, status: 0 }; });
    });
  }
  if (!m.url) return Promise.resolve({ ok: true, opened: '' });
  return self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (windows[i].url === m.url && 'focus' in windows[i]) return windows[i].focus();
    }
    return self.clients.openWindow(m.url);
  }).then(function () { return { ok: true, opened: m.url }; });
}

self.addEventListener('notificationclick', function (event) {
  var m = event.notification.data || {};
  event.notification.close();
  event.waitUntil(act(m, event.action));
});

// A page of the inbox may ask the worker to act on one of its notifications as a click would
// ({type: 'notification-action', tag, action}): the same code runs, and the page hears the
// outcome. Only pages of this origin can message the worker, and a notification's action is
// nothing those pages could not do themselves.
self.addEventListener('message', function (event) {
  var d = event.data || {};
  if (d.type !== 'notification-action') return;
  event.waitUntil(self.registration.getNotifications({ tag: d.tag }).then(function (list) {
    if (!list.length) return { ok: false, status: 0, error: 'no notification with tag ' + d.tag };
    var n = list[list.length - 1];
    n.close();
    return act(n.data || {}, d.action);
  }).then(function (result) {
    if (event.source) event.source.postMessage({ type: 'notification-action-result', tag: d.tag, result: result });
  }));
});

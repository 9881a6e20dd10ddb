// hitl inbox: live updates and small helps. Every page works without this script; it adds
// countdowns, rows for lists, and follows the event stream to refresh the parts of the page
// that changed, from the server's own rendering of the page.
(function () {
  'use strict';

  // The installed app: the service worker keeps the shell for when the server cannot be
  // reached, and shows notifications. "Turn on notifications" subscribes this device with the
  // server's VAPID key and gives the server the subscription; "Turn off" forgets it.
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(function () {});
    var toggle = document.getElementById('push-toggle');
    if (toggle && 'PushManager' in window && 'Notification' in window) setUpPush(toggle);
  }
  function keyBytes(b64) {
    var s = (b64 + '='.repeat((4 - b64.length % 4) % 4)).replace(/-/g, '+').replace(/_/g, '/');
    var raw = atob(s), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }
  function post(path, fields) {
    return fetch(path, { method: 'POST', credentials: 'same-origin', body: new URLSearchParams(fields) }).then(function (res) {
      if (!res.ok) return res.json().catch(function () { return {}; }).then(function (p) { throw new Error(p.detail || 'the server refused (' + res.status + ')'); });
      return res;
    });
  }
  function setUpPush(toggle) {
    var csrf = toggle.dataset.csrf;
    // Signing out turns this device's notifications off: on a shared phone the next person
    // must not see the last one's questions nor answer with their buttons. The server forgets
    // the device (push_endpoint); the browser drops its subscription, within a few seconds at
    // most, so that a push service that does not answer never holds the sign-out up.
    var signOut = document.getElementById('sign-out');
    if (signOut) signOut.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var submitted = false;
      function submit() { if (!submitted) { submitted = true; signOut.submit(); } }
      setTimeout(submit, 3000);
      navigator.serviceWorker.ready.then(function (reg) { return reg.pushManager.getSubscription(); }).then(function (sub) {
        if (!sub) return;
        var field = document.createElement('input');
        field.type = 'hidden'; field.name = 'push_endpoint'; field.value = sub.endpoint;
        signOut.appendChild(field);
        return sub.unsubscribe();
      }).catch(function () {}).then(submit);
    });
    function show(on, note) {
      toggle.hidden = false;
      toggle.dataset.on = on ? 'true' : 'false';
      toggle.textContent = on ? 'Turn off notifications' : 'Turn on notifications';
      if (note) toggle.title = note;
    }
    navigator.serviceWorker.ready.then(function (reg) {
      return reg.pushManager.getSubscription();
    }).then(function (sub) { show(!!sub); }, function () { show(false); });
    toggle.addEventListener('click', function () {
      toggle.disabled = true;
      navigator.serviceWorker.ready.then(function (reg) {
        return reg.pushManager.getSubscription().then(function (sub) {
          if (toggle.dataset.on === 'true' && sub) {
            return post('/push/unsubscribe', { csrf: csrf, endpoint: sub.endpoint }).then(function () { return sub.unsubscribe(); }).then(function () { show(false, 'Notifications are off on this device'); });
          }
          return Notification.requestPermission().then(function (perm) {
            if (perm !== 'granted') throw new Error('notifications are blocked for this site in the browser');
            return sub || reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(toggle.dataset.key) });
          }).then(function (s) {
            return post('/push/subscriptions', { csrf: csrf, subscription: JSON.stringify(s.toJSON()) });
          }).then(function () { show(true, 'Notifications are on on this device'); });
        });
      }).catch(function (err) {
        // Said in the page's status line (the inbox opens no dialogs).
        var line = 'Notifications could not be changed: ' + err.message;
        show(toggle.dataset.on === 'true', line);
        var status = document.getElementById('live');
        if (status) { status.hidden = false; status.textContent = line; status.dataset.state = 'offline'; }
      }).then(function () { toggle.disabled = false; });
    });
  }

  // Countdowns: every <time data-deadline> says how long is left, each second.
  function left(ms) {
    if (ms <= 0) return 'due now';
    var s = Math.ceil(ms / 1000);
    if (s < 60) return s + 's left';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + String(s % 60).padStart(2, '0') + 's left';
    if (s < 48 * 3600) return Math.floor(s / 3600) + 'h ' + String(Math.floor(s / 60) % 60).padStart(2, '0') + 'm left';
    return Math.floor(s / 86400) + ' days left';
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('time[data-deadline]').forEach(function (t) {
      var ms = Date.parse(t.dataset.deadline) - now;
      t.textContent = left(ms);
      t.classList.toggle('soon', ms < 5 * 60 * 1000);
    });
  }
  tick();
  setInterval(tick, 1000);

  // Times: the server writes them in the zone the person set (else UTC); each shows in that
  // zone, or the browser's when they set none, with UTC on hover. A moment (time.clock) is
  // rewritten; a countdown or "5 min ago" keeps its words and gets the local time and UTC on
  // hover.
  var zone = document.body.dataset.timeZone;
  function format(options) {
    if (zone) {
      try {
        return new Intl.DateTimeFormat(undefined, Object.assign({ timeZone: zone }, options));
      } catch (e) { /* a zone this browser does not know: its own */ }
    }
    return new Intl.DateTimeFormat(undefined, options);
  }
  var parts = { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };
  var formats = {
    '': format(parts),
    seconds: format(Object.assign({ second: '2-digit' }, parts)),
    time: format({ hour: 'numeric', minute: '2-digit', timeZoneName: 'short' })
  };
  function utc(d) { return d.toISOString().slice(0, 19).replace('T', ' ') + ' UTC'; }
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d.getTime())) return;
      if (t.classList.contains('clock')) {
        t.textContent = (formats[t.dataset.show || ''] || formats['']).format(d);
        t.title = utc(d);
      } else {
        t.title = formats[''].format(d) + ' (' + utc(d) + ')';
      }
    });
  }
  localTimes(document);

  // Required fields: one left empty says "is required" as the person leaves it, in the words
  // the server uses, and filling it takes the words away (the server's too). The server still
  // checks everything at once on submit.
  var required = 'is required';
  function filled(field) {
    return Array.prototype.some.call(field.querySelectorAll('input, select, textarea'), function (i) {
      if (i.type === 'radio' || i.type === 'checkbox') return i.checked && i.value !== '';
      return i.value.trim() !== '';
    });
  }
  function requiredError(field) {
    return Array.prototype.filter.call(field.children, function (c) {
      return c.classList.contains('field-error') && c.textContent.trim() === required;
    })[0];
  }
  function showRequired(field, missing) {
    var id = field.dataset.needsValue, shown = requiredError(field);
    var described = field.tagName === 'FIELDSET' ? field : document.getElementById(id);
    if (!described) return;
    if (missing && !field.querySelector(':scope > .field-error')) {
      var p = document.createElement('p');
      p.className = 'field-error';
      p.id = id + '-error';
      p.textContent = required;
      field.appendChild(p);
      field.classList.add('invalid');
      described.setAttribute('aria-invalid', 'true');
      var by = (described.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
      if (by.indexOf(p.id) < 0) described.setAttribute('aria-describedby', by.concat(p.id).join(' '));
    } else if (!missing && shown) {
      shown.remove();
      field.classList.remove('invalid');
      described.removeAttribute('aria-invalid');
      var rest = (described.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x && x !== shown.id; });
      if (rest.length) described.setAttribute('aria-describedby', rest.join(' ')); else described.removeAttribute('aria-describedby');
    }
  }
  function neededField(el) { return el && el.closest && el.closest('#answer-form [data-needs-value]'); }
  ['input', 'change'].forEach(function (type) {
    document.addEventListener(type, function (e) {
      var field = neededField(e.target);
      if (!field) return;
      field.dataset.touched = '1';
      if (filled(field)) showRequired(field, false);
      else if (type === 'change') showRequired(field, true);
    });
  });
  document.addEventListener('focusout', function (e) {
    var field = neededField(e.target);
    if (!field || !field.dataset.touched || field.contains(e.relatedTarget)) return;
    if (!filled(field)) showRequired(field, true);
  });

  // Lists: add and remove rows (without the script, the form always has one empty row).
  function setUpLists(root) {
    root.querySelectorAll('[data-add-row]').forEach(function (b) { b.hidden = false; });
    root.querySelectorAll('[data-list] .no-script').forEach(function (p) { p.hidden = true; });
  }
  setUpLists(document);
  document.addEventListener('click', function (e) {
    var add = e.target.closest('[data-add-row]');
    if (add) {
      var rows = add.closest('[data-list]').querySelector('.rows');
      var last = rows.lastElementChild;
      var row = last.cloneNode(true);
      var n = rows.children.length;
      var input = row.querySelector('input');
      var label = row.querySelector('label');
      input.value = '';
      input.id = input.id.replace(/-\d+$/, '-' + n);
      label.htmlFor = input.id;
      label.textContent = label.textContent.replace(/\d+$/, String(n + 1));
      rows.appendChild(row);
      input.focus();
      return;
    }
    var remove = e.target.closest('[data-remove-row]');
    if (remove) {
      var list = remove.closest('.rows');
      var li = remove.closest('li');
      if (list.children.length > 1) {
        li.remove();
        list.querySelector('input').focus();
      } else {
        li.querySelector('input').value = '';
      }
    }
  });

  // Edited arguments of a tool call: what the person changed of those proposed, as they type
  // (without the script, "Show my changes" asks the server), and Edit ticked once they do.
  function showChanges(fieldset) {
    var proposed = JSON.parse(fieldset.dataset.proposed || '{}');
    var now = {};
    new FormData(fieldset.form).forEach(function (v, name) {
      if (name.indexOf('answer') === 0 && String(v).trim() !== '') (now[name] = now[name] || []).push(String(v));
    });
    var names = Object.keys(proposed).concat(Object.keys(now).filter(function (n) { return !(n in proposed); })).sort();
    var list = document.createElement('ul');
    list.className = 'diff';
    list.id = 'args-changes';
    names.forEach(function (name) {
      var before = (proposed[name] || []).join(', '), after = (now[name] || []).join(', ');
      if (before === after) return;
      var li = document.createElement('li');
      var code = document.createElement('code');
      code.textContent = name.slice('answer'.length) || '/';
      li.appendChild(code);
      li.appendChild(document.createTextNode(': '));
      var del = document.createElement(before ? 'del' : 'span');
      del.textContent = before || '(none)';
      var ins = document.createElement(after ? 'ins' : 'span');
      ins.textContent = after || '(removed)';
      li.appendChild(del);
      li.appendChild(document.createTextNode(' → '));
      li.appendChild(ins);
      list.appendChild(li);
    });
    var box = fieldset.querySelector('#args-diff');
    box.textContent = '';
    if (list.children.length) {
      box.appendChild(list);
    } else {
      var none = document.createElement('p');
      none.className = 'muted';
      none.id = 'no-changes';
      none.textContent = 'None: the arguments are as proposed.';
      box.appendChild(none);
    }
    return list.children.length > 0;
  }
  function setUpEdits(root) {
    root.querySelectorAll('#show-changes').forEach(function (b) { b.hidden = true; });
  }
  setUpEdits(document);
  ['input', 'change'].forEach(function (type) {
    document.addEventListener(type, function (e) {
      var fieldset = e.target.closest && e.target.closest('#edit-args');
      if (!fieldset) return;
      var edit = fieldset.form.querySelector('input[name="decision"][value="edit"]');
      if (showChanges(fieldset) && edit) edit.checked = true;
    });
  });

  // A page that is open when the device goes offline says so (pages opened meanwhile are the
  // worker's offline page); back online, the live updates catch up by themselves.
  var note = document.getElementById('live');
  if (note) {
    window.addEventListener('offline', function () {
      note.hidden = false;
      note.textContent = 'Offline: the server cannot be reached';
      note.dataset.state = 'offline';
    });
  }

  // Live updates.
  var body = document.body;
  var filter = body.dataset.stream;
  if (!filter || !window.EventSource) return;
  var status = document.getElementById('live');
  function say(text, state) {
    // While the device is offline, the offline note above stands: the stream's own failure
    // ("Reconnecting…"), which may come after it, says less. Back online, the stream speaks again.
    if (!navigator.onLine) return;
    status.hidden = false;
    status.textContent = text;
    status.dataset.state = state;
  }

  // refresh fetches this page again and swaps in every region marked data-live, so what the
  // page shows is always what the server renders; focus stays where it was.
  var refreshing = null, again = false;
  function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = fetch(location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
      .then(function (res) { return res.ok || res.status === 404 ? res.text() : Promise.reject(res.status); })
      .then(function (html) {
        var next = new DOMParser().parseFromString(html, 'text/html');
        var focused = document.activeElement && document.activeElement.id;
        // Ticks for "Approve selected" are the person's, not the server's: they stay.
        var ticked = {};
        document.querySelectorAll('input.select:checked').forEach(function (c) { ticked[c.value] = true; });
        document.querySelectorAll('[data-live][id]').forEach(function (el) {
          var fresh = next.getElementById(el.id);
          if (fresh && fresh.innerHTML !== el.innerHTML) {
            el.replaceWith(document.importNode(fresh, true));
          }
        });
        document.querySelectorAll('input.select').forEach(function (c) { if (ticked[c.value]) c.checked = true; });
        if (next.title) document.title = next.title;
        setUpLists(document);
        setUpEdits(document);
        localTimes(document);
        tick();
        if (focused && document.getElementById(focused) && document.activeElement === body) {
          document.getElementById(focused).focus();
        }
      })
      .catch(function () {})
      .then(function () {
        refreshing = null;
        if (again) { again = false; refresh(); }
      });
  }
  var pending = null;
  function soon() {
    clearTimeout(pending);
    pending = setTimeout(refresh, 50);
  }

  var last = body.dataset.seq;
  var source = null, retry = 1000;
  function connect() {
    source = new EventSource('/v1/events/stream?' + filter + '&after=' + encodeURIComponent(last));
    source.addEventListener('start', function () { say('Live', 'live'); retry = 1000; });
    ['inquiry.created', 'inquiry.responded', 'inquiry.timeout', 'inquiry.cancelled',
      'inquiry.voted', 'inquiry.step_completed', 'inquiry.claimed', 'inquiry.released', 'inquiry.assigned', 'inquiry.escalated',
      'session.updated', 'session.completed', 'session.failed', 'session.cancelled'].forEach(function (type) {
      source.addEventListener(type, function (e) {
        if (e.lastEventId) last = e.lastEventId;
        soon();
      });
    });
    // The server could not keep up with this page: reload it from the server's state.
    source.addEventListener('reset', function () { location.reload(); });
    source.onerror = function () {
      say('Reconnecting…', 'offline');
      // The browser reconnects by itself (sending Last-Event-ID) unless the server refused
      // the stream. Refused because the inbox session ended (signed out elsewhere, expired,
      // key revoked): the page itself now sends the browser to sign in, so reload it rather
      // than knock forever. Otherwise try again later, from the last event this page saw,
      // and refresh in case something happened meanwhile.
      if (source.readyState !== EventSource.CLOSED) return;
      function later() {
        setTimeout(function () { connect(); soon(); }, retry);
        retry = Math.min(retry * 2, 30000);
      }
      fetch(location.href, { credentials: 'same-origin', redirect: 'manual', headers: { 'Accept': 'text/html' } })
        .then(function (res) {
          if (res.type === 'opaqueredirect' || res.status === 401) {
            say('Signed out', 'offline');
            location.reload();
            return;
          }
          later();
        }, later);
    };
  }
  connect();
})();

// rewardsim hosted microsite: impression tracking when cards show, click
// tracking and the one-shot reveal on scratch, then the SDK reveal
// callbacks (SDK-3). Vanilla JavaScript, no external scripts.
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || app.dataset.state !== 'ready') { return; }

  // A tracking GET; the simulator's answer is 204. The promise settles
  // once the request has been answered (or failed).
  function ping(url) {
    if (!url) { return Promise.resolve(); }
    return fetch(url, {mode: 'no-cors', cache: 'no-store', credentials: 'omit', keepalive: true})
      .then(function () {}, function () {});
  }

  function impressions(tile) {
    var links = [];
    try { links = JSON.parse(tile.dataset.trackLinks || '[]'); } catch (e) {}
    Promise.all(links.map(ping)).then(function () { tile.dataset.impression = 'sent'; });
  }

  // Images that fail to load give way to a generated placeholder.
  function guardImages(root) {
    root.querySelectorAll('img').forEach(function (img) {
      var swap = function () {
        if (img.dataset.fallback) { return; }
        img.dataset.fallback = '1';
        img.src = '/assets/img/scratch-card-cover.svg';
      };
      img.addEventListener('error', swap);
      if (img.complete && img.naturalWidth === 0 && img.getAttribute('src')) { swap(); }
    });
  }

  function openDetail(tile) {
    document.querySelectorAll('.detail').forEach(function (d) { d.hidden = true; });
    var d = tile && tile.querySelector('.detail');
    if (d) { d.hidden = false; }
  }

  function counts() {
    document.getElementById('count-unscratched').textContent = document.querySelectorAll('.tile.unscratched').length;
    document.getElementById('count-revealed').textContent = document.querySelectorAll('.tile.revealed').length;
  }

  // deliver hands the reveal payload to the app: an Android-style bridge
  // object's onReveal(string) and an iOS-style WKWebView message handler
  // Handle<Partner>ScDetails with {scDetails}, each when present, plus a
  // DOM event for plain web views.
  function deliver(payload) {
    var bridge = window[app.dataset.bridge];
    if (bridge && typeof bridge.onReveal === 'function') { bridge.onReveal(payload); }
    var mh = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers[app.dataset.iosHandler];
    if (mh && typeof mh.postMessage === 'function') { mh.postMessage({scDetails: payload}); }
    document.dispatchEvent(new CustomEvent('rewardsim:reveal', {detail: payload}));
    app.dataset.callbacks = String(Number(app.dataset.callbacks || 0) + 1);
  }

  function fail(tile, msg) {
    tile.classList.remove('scratching');
    delete tile.dataset.busy;
    var p = tile.querySelector('.error');
    if (p) { p.textContent = msg; p.hidden = false; }
  }

  function scratch(tile) {
    if (tile.dataset.busy) { return; }
    tile.dataset.busy = '1';
    tile.classList.add('scratching');
    var id = Number(tile.dataset.rewardId);
    ping(tile.dataset.clickUrl).then(function () {
      return fetch('/microsite/scratch', {
        method: 'POST', headers: {'Content-Type': 'application/json'}, cache: 'no-store',
        body: JSON.stringify({sessionId: app.dataset.sessionId, virtualId: app.dataset.virtualId, rewardId: id})
      });
    }).then(function (res) {
      return res.json().then(function (body) { return {ok: res.ok, body: body}; });
    }).then(function (r) {
      if (!r.ok) { fail(tile, r.body.message || 'The card could not be scratched.'); return; }
      var holder = document.createElement('div');
      holder.innerHTML = r.body.tile;
      var fresh = holder.firstElementChild;
      fresh.dataset.impression = tile.dataset.impression || '';
      fresh.dataset.clickTracked = 'sent';
      tile.replaceWith(fresh);
      guardImages(fresh);
      counts();
      openDetail(fresh);
      if (r.body.callback) { deliver(r.body.callback); }
      fresh.dataset.revealDone = '1';
    }, function () { fail(tile, 'The card could not be scratched. Try again.'); });
  }

  app.addEventListener('click', function (ev) {
    var el = ev.target.closest('[data-action]');
    if (!el) { return; }
    var tile = el.closest('.tile');
    switch (el.dataset.action) {
      case 'scratch': scratch(tile); break;
      case 'details': openDetail(tile); break;
      case 'close': el.closest('.detail').hidden = true; break;
      case 'copy':
        var code = el.parentNode.querySelector('.coupon-code').textContent;
        if (navigator.clipboard) { navigator.clipboard.writeText(code).catch(function () {}); }
        el.textContent = 'Copied';
        break;
      case 'redeem': ping(tile.dataset.rewardClickUrl); break;
    }
  });
  app.addEventListener('click', function (ev) {
    if (ev.target.classList && ev.target.classList.contains('detail')) { ev.target.hidden = true; }
  });

  guardImages(document);
  document.querySelectorAll('.tile').forEach(impressions);
  var focus = document.querySelector('.tile.focus');
  if (focus) { focus.scrollIntoView({block: 'center'}); }
})();

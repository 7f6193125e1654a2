"use strict";
(function () {
  var body = document.querySelector("#sources tbody");
  var overall = document.getElementById("overall");
  var clock = document.getElementById("clock");
  var skew = 0; // server clock minus ours, in ms
  var data = JSON.parse(document.getElementById("data").textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function ago(t, now) {
    var s = Math.max(0, (now - Date.parse(t)) / 1000);
    if (s < 60) return s.toFixed(0) + "s ago";
    if (s < 3600) return (s / 60).toFixed(0) + "m ago";
    return (s / 3600).toFixed(1) + "h ago";
  }
  function countdown(t, now) {
    var s = (Date.parse(t) - now) / 1000;
    return s > 0 ? "in " + s.toFixed(1) + "s" : "now";
  }
  // timeline draws the last transitions as coloured spans of the states
  // they entered, oldest on the left, up to now.
  function timeline(history, now) {
    var ns = "http://www.w3.org/2000/svg", w = 240, h = 14;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", w); svg.setAttribute("height", h);
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("role", "img");
    if (history.length === 0) return svg;
    var start = Date.parse(history[0].at), span = Math.max(now - start, 1);
    for (var i = 0; i < history.length; i++) {
      var t0 = Date.parse(history[i].at);
      var t1 = i + 1 < history.length ? Date.parse(history[i + 1].at) : now;
      var r = document.createElementNS(ns, "rect");
      r.setAttribute("x", ((t0 - start) / span * w).toFixed(2));
      r.setAttribute("width", Math.max((t1 - t0) / span * w, 1).toFixed(2));
      r.setAttribute("y", 0); r.setAttribute("height", h);
      r.setAttribute("class", history[i].to);
      var title = document.createElementNS(ns, "title");
      title.textContent = history[i].from + " → " + history[i].to + (history[i].reason ? " (" + history[i].reason + ")" : "") + (history[i].err ? ": " + history[i].err : "");
      r.appendChild(title);
      svg.appendChild(r);
    }
    return svg;
  }
  function render() {
    var now = Date.now() + skew;
    overall.textContent = data.ready ? "ready" : "not ready";
    overall.className = "pill " + (data.ready ? "ok" : "unavailable");
    clock.textContent = "updated " + new Date(Date.parse(data.now)).toLocaleTimeString();
    var rows = [];
    data.sources.forEach(function (s) {
      var tr = el("tr");
      tr.dataset.name = s.name;
      tr.dataset.state = s.state;
      tr.appendChild(el("td", "name", s.name + (s.critical ? "" : " (not critical)")));
      var st = el("td"); st.appendChild(el("span", "pill state " + s.state, s.state)); tr.appendChild(st);
      if (s.degraded) { st.appendChild(el("span", "degraded", " degraded" + (s.degraded_error ? ": " + s.degraded_error : ""))); }
      tr.appendChild(el("td", "since", ago(s.since, now)));
      tr.appendChild(el("td", "attempts", String(s.consecutive_failures)));
      tr.appendChild(el("td", "next", s.next_attempt ? countdown(s.next_attempt, now) : "—"));
      tr.appendChild(el("td", "reconnects", String(s.reconnects_last_minute)));
      tr.appendChild(el("td", "lag" + (s.lagging ? " lagging" : ""), s.lag ? s.lag.waiting + " waiting, oldest " + s.lag.oldest_seconds.toFixed(1) + "s" : "—"));
      tr.appendChild(el("td", "endpoint", s.endpoint || "—"));
      tr.appendChild(el("td", "err", s.last_error ? (s.last_failure ? "(" + ago(s.last_failure, now) + ") " : "") + s.last_error : "—"));
      var tl = el("td", "timeline"); tl.appendChild(timeline(s.history, now)); tr.appendChild(tl);
      rows.push(tr);
      (s.endpoints || []).forEach(function (e) {
        var er = el("tr", "endpoint");
        er.dataset.source = s.name;
        er.dataset.endpoint = e.name;
        er.dataset.state = e.state;
        er.appendChild(el("td", "name", "↳ " + e.name + (e.preferred ? " (preferred)" : "")));
        var es = el("td"); es.appendChild(el("span", "pill ep " + e.state, e.state)); er.appendChild(es);
        er.appendChild(el("td", "since", ""));
        er.appendChild(el("td", "attempts", String(e.consecutive_failures)));
        er.appendChild(el("td", "next", e.ejected_until ? "back " + countdown(e.ejected_until, now) : "—"));
        er.appendChild(el("td", "", "")); er.appendChild(el("td", "", ""));
        er.appendChild(el("td", "endpoint", e.name === s.endpoint ? "in use" : ""));
        er.appendChild(el("td", "", "")); er.appendChild(el("td", "", ""));
        rows.push(er);
      });
    });
    body.replaceChildren.apply(body, rows);
  }
  function poll() {
    var url = location.pathname + "?format=json";
    fetch(url, { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (d) {
      data = d;
      skew = Date.parse(d.now) - Date.now();
      render();
    }).catch(function () {
      overall.textContent = "page offline";
      overall.className = "pill unavailable";
    });
  }
  render();
  setInterval(render, 200);  // countdowns
  setInterval(poll, 1000);   // the data
})();

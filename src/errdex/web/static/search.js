// Client-side search of the static export: reads window.ERRDEX_INDEX (search-index.js).
(function () {
  var rows = window.ERRDEX_INDEX || [];
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  if (!input || !list) { return; }
  function words(text) { return (text.toLowerCase().match(/\w+/g) || []); }
  function run() {
    var terms = words(input.value);
    list.textContent = "";
    if (!terms.length) { status.textContent = "Type a few words of the message."; return; }
    var hits = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], hay = (r.m + " " + r.c + " " + r.p).toLowerCase(), score = 0;
      for (var j = 0; j < terms.length; j++) {
        if (hay.indexOf(terms[j]) < 0) { score = -1; break; }
        if (r.m.toLowerCase().indexOf(terms[j]) >= 0) { score += 2; } else { score += 1; }
      }
      if (score > 0) { hits.push([score, r]); }
    }
    hits.sort(function (a, b) { return b[0] - a[0]; });
    status.textContent = hits.length + " result" + (hits.length === 1 ? "" : "s");
    hits.slice(0, 100).forEach(function (hit) {
      var r = hit[1], li = document.createElement("li"), a = document.createElement("a");
      var meta = document.createElement("span");
      li.className = "record"; a.className = "record-link";
      a.href = "errors/" + encodeURIComponent(r.i) + ".html";
      a.textContent = r.m || "(no message)";
      meta.className = "meta"; meta.textContent = (r.c || "") + " · " + r.p;
      li.appendChild(a); li.appendChild(meta); list.appendChild(li);
    });
  }
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { input.value = q; }
  input.addEventListener("input", run);
  if (input.form) { input.form.addEventListener("submit", function (ev) { ev.preventDefault(); run(); }); }
  run();
})();

// Spec site: open a folded vector when the address points at it.
(function () {
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id) return;
    var element = document.getElementById(id);
    if (element && element.tagName === "DETAILS") {
      element.open = true;
      element.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", openTarget);
  } else {
    openTarget();
  }
})();

// Vector catalog: find a vector by id (exact, or the start of one), and
// vectors/?id=<vector id> jumps straight to it.
(function () {
  function setup() {
    var form = document.getElementById("dl-vector-lookup");
    if (!form) return;
    var input = document.getElementById("dl-vector-id");
    var result = document.getElementById("dl-lookup-result");
    var base = new URL(".", window.location.href);
    var site = new URL("..", base);
    var ids = null;
    function load() {
      if (ids) return Promise.resolve(ids);
      return fetch(new URL(form.getAttribute("data-ids"), base)).then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      }).then(function (data) { ids = data; return ids; });
    }
    function go(id) {
      id = id.trim();
      if (!id) return;
      load().then(function (map) {
        if (map[id]) {
          window.location.href = new URL(map[id], site).href;
          return;
        }
        var matches = Object.keys(map).filter(function (k) { return k.indexOf(id) === 0; });
        result.textContent = "";
        if (matches.length === 0) {
          result.textContent = "No vector id starts with \u201c" + id + "\u201d.";
          return;
        }
        if (matches.length === 1) {
          window.location.href = new URL(map[matches[0]], site).href;
          return;
        }
        result.appendChild(document.createTextNode(matches.length + " ids start with it: "));
        matches.slice(0, 20).forEach(function (k, i) {
          var a = document.createElement("a");
          a.href = new URL(map[k], site).href;
          a.textContent = k;
          if (i) result.appendChild(document.createTextNode(", "));
          result.appendChild(a);
        });
        if (matches.length > 20) result.appendChild(document.createTextNode(", \u2026"));
      }).catch(function (error) {
        result.textContent = "Cannot load the id list: " + error.message;
      });
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      go(input.value);
    });
    var wanted = new URLSearchParams(window.location.search).get("id");
    if (wanted) {
      input.value = wanted;
      go(wanted);
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();

// The fleet page's lists and drill-downs, drawn from the run lines above (DoomloopPlot is
// inlined before this script). No network, no library.
(function () {
  "use strict";
  var setup = JSON.parse(document.getElementById("fleet-setup").textContent);
  var runs = document.getElementById("fleet-runs").textContent.split("\n")
    .filter(function (line) { return line.trim() !== ""; })
    .map(function (line) { return JSON.parse(line); });
  var RUNGS = ["observe", "steer", "escalate", "block", "stop"];
  var strength = setup.strength;
  var byId = {}, sessions = {}, children = {};
  runs.forEach(function (run) {
    byId[run.id] = run;
    if (run.parent === null) {
      sessions[run.session || run.id] = run;
      if (run.session) { sessions[run.id] = run; }
    }
  });
  runs.forEach(function (run) {
    if (run.parent !== null) { (children[run.parent] = children[run.parent] || []).push(run); }
  });

  function interferes(action) { return action !== null && strength[action] >= strength.steer; }
  function h(name, text, attrs) {
    var node = document.createElement(name);
    if (text !== undefined && text !== null) { node.textContent = text; }
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function runLink(run, text) {
    return h("a", text || run.id, {href: "#run=" + encodeURIComponent(run.id), "class": "run-link",
                                   "data-run": run.id, title: run.id});
  }
  function outcomeBadge(group) {
    var badge = h("span", group, {"class": "badge outcome-" + group});
    badge.style.background = setup.outcomeColours[group];
    return badge;
  }
  function rungBadge(rung) {
    if (!rung) { return document.createTextNode("-"); }
    var badge = h("span", rung, {"class": "badge rung-" + rung});
    badge.style.background = setup.colours[rung];
    return badge;
  }
  function parentOf(run) { return run.parent === null ? null : (sessions[run.parent] || byId[run.parent] || null); }
  function childrenOf(run) {
    if (run.parent !== null) { return []; }
    var found = (children[run.id] || []).slice();
    if (run.session && run.session !== run.id) { found = found.concat(children[run.session] || []); }
    return found;
  }
  // The first time steer or a stronger rung applied: {rung, round, line, by, streak, message}.
  function firstInterference(run) {
    var best = null;
    Object.keys(run.fired).forEach(function (rung) {
      var at = run.fired[rung];
      if (!interferes(rung)) { return; }
      if (best === null || at.round < best.round
          || (at.round === best.round && strength[rung] > strength[best.rung])) {
        best = {rung: rung, round: at.round, line: at.line, by: at.by, streak: at.streak, message: at.message};
      }
    });
    return best;
  }
  // What the results of the streaks of ``tool`` that fired say.
  function resultsOf(run, tool) {
    if (tool === "text") { return "a text verdict: no results to compare"; }
    var counts = {identical: 0, changed: 0, unknown: 0};
    run.streakList.forEach(function (s) {
      if (s.tool === tool && s.action !== null) { counts[s.results] += 1; }
    });
    var said = Object.keys(counts).filter(function (k) { return counts[k]; })
      .map(function (k) { return counts[k] + " " + k; });
    return said.length ? "streaks that fired: " + said.join(", ")
      + (counts.changed ? " (changed: polling or progress, not a loop)" : "")
      + (counts.identical ? (counts.changed ? "" : " (identical: a loop)") : "")
      : "streak results: none closed";
  }
  function table(header, rows, ident) {
    var tab = h("table", null, ident ? {id: ident} : {});
    var head = tab.createTHead().insertRow();
    header.forEach(function (text) { head.appendChild(h("th", text)); });
    var body = tab.createTBody();
    rows.forEach(function (cells) {
      var row = body.insertRow();
      cells.forEach(function (cell) {
        var td = row.insertCell();
        if (cell instanceof Node) { td.appendChild(cell); } else { td.textContent = cell; }
      });
    });
    return tab;
  }
  function where(run) {
    var span = h("span");
    span.appendChild(runLink(run, run.parent !== null ? "\u21b3 " + run.subAgent : run.id));
    var parent = parentOf(run);
    if (run.parent !== null) {
      span.appendChild(document.createTextNode(" (sub-agent of "));
      span.appendChild(parent ? runLink(parent) : document.createTextNode(run.parent));
      span.appendChild(document.createTextNode(")"));
    }
    return span;
  }

  // -- the successful runs the ladder would interfere with, first -----------------------
  (function () {
    var section = document.querySelector("#interfered .list");
    var wanted = runs.filter(function (run) {
      return interferes(run.strongest) && (!setup.labelled || run.outcome === "success");
    });
    if (!setup.labelled) {
      document.querySelector("#interfered h2").textContent =
        "Runs this ladder would interfere with (no outcome labels)";
      section.appendChild(h("p", "No outcome labels (--outcomes FILE): successful runs cannot "
        + "be told apart. Every run this ladder would interfere with:", {"class": "warning"}));
    }
    var found = wanted.map(function (run) { return [run, firstInterference(run)]; });
    found.sort(function (a, b) {
      return strength[b[1].rung] - strength[a[1].rung] || a[1].round - b[1].round
        || (a[0].id < b[0].id ? -1 : 1);
    });
    if (!found.length) {
      var successes = runs.filter(function (run) { return run.outcome === "success"; }).length;
      section.appendChild(h("p", setup.labelled
        ? "None: this ladder leaves all " + successes + " successful runs alone."
        : "None: this ladder leaves every run alone.", {"class": "none"}));
      return;
    }
    section.appendChild(table(
      ["run", "outcome", "rung", "first at", "fired by", "streak", "why (the verdict)", "results"],
      found.map(function (pair) {
        var run = pair[0], at = pair[1];
        return [where(run), outcomeBadge(run.outcome), rungBadge(at.rung),
                "round " + at.round + " (line " + at.line + ")", at.by,
                at.streak === null ? "-" : String(at.streak), at.message, resultsOf(run, at.by)];
      }), "interfered-table"));
  }());

  // -- every run, sortable ------------------------------------------------------------------
  function strongestValue(action) { return action ? strength[action] : -1; }
  var columns = [
    {label: "run", value: function (r) { return r.id; }, cell: where},
    {label: "outcome", value: function (r) { return r.outcome; }, cell: function (r) { return outcomeBadge(r.outcome); }},
    {label: "format", value: function (r) { return r.format || ""; }},
    {label: "rounds", value: function (r) { return r.rounds; }},
    {label: "calls", value: function (r) { return r.calls; }},
    {label: "not exec.", value: function (r) { return r.notExecuted; }},
    {label: "call verdict", value: function (r) { return strongestValue(r.strongestBy.calls); },
     cell: function (r) { return rungBadge(r.strongestBy.calls); }},
    {label: "text verdict", value: function (r) { return strongestValue(r.strongestBy.text); },
     cell: function (r) { return rungBadge(r.strongestBy.text); }},
    {label: "interfered at", value: function (r) { var at = firstInterference(r); return at ? at.round : Infinity; },
     cell: function (r) { var at = firstInterference(r); return at ? "round " + at.round : "-"; }},
    {label: "identical", value: function (r) { return r.streaks.identical; }},
    {label: "changed", value: function (r) { return r.streaks.changed; }},
    {label: "unknown", value: function (r) { return r.streaks.unknown; }},
    {label: "warnings", value: function (r) { return r.notices; }},
    {label: "problems", value: function (r) { return r.skipped; }}
  ];
  // the corpus's order, each session followed by its sub-agents
  var treeOrder = [];
  runs.forEach(function (run) {
    if (run.parent !== null && parentOf(run)) { return; }
    treeOrder.push(run);
    if (run.parent === null) { treeOrder.push.apply(treeOrder, childrenOf(run)); }
  });
  var sortState = {column: -1, descending: false};
  var runTable = table(columns.map(function (c) { return c.label; }), [], "run-table");
  document.querySelector("#runs .list").appendChild(runTable);
  function fillRuns() {
    var order = treeOrder.slice();
    if (sortState.column >= 0) {
      var column = columns[sortState.column], sign = sortState.descending ? -1 : 1;
      order.sort(function (a, b) {
        var x = column.value(a), y = column.value(b);
        return (x < y ? -1 : x > y ? 1 : 0) * sign || (a.id < b.id ? -1 : 1);
      });
    }
    var body = runTable.tBodies[0];
    body.textContent = "";
    order.forEach(function (run) {
      var row = body.insertRow();
      row.setAttribute("data-run", run.id);
      columns.forEach(function (column) {
        var td = row.insertCell(), shown = column.cell ? column.cell(run) : column.value(run);
        if (shown instanceof Node) { td.appendChild(shown); } else { td.textContent = String(shown); }
      });
    });
  }
  Array.prototype.forEach.call(runTable.tHead.rows[0].cells, function (th, index) {
    th.setAttribute("role", "button");
    th.setAttribute("tabindex", "0");
    th.setAttribute("aria-sort", "none");
    function sort() {
      sortState.descending = sortState.column === index ? !sortState.descending : index > 2;
      sortState.column = index;
      Array.prototype.forEach.call(runTable.tHead.rows[0].cells, function (other) {
        other.setAttribute("aria-sort", "none");
      });
      th.setAttribute("aria-sort", sortState.descending ? "descending" : "ascending");
      fillRuns();
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (event) { if (event.key === "Enter") { sort(); } });
  });
  fillRuns();

  // -- runs with warnings or problems ----------------------------------------------------------
  (function () {
    var warned = runs.filter(function (run) { return run.notices || run.skipped; });
    var list = document.getElementById("warned");
    if (!warned.length) { list.appendChild(h("p", "None.")); return; }
    list.appendChild(table(["run", "warnings", "records left out", "first warning"],
      warned.map(function (run) {
        var first = run.noticeList.length ? "line " + run.noticeList[0].line + ": " + run.noticeList[0].message : "-";
        return [where(run), String(run.notices), String(run.skipped), first];
      }), "warned-table"));
  }());

  // -- one run ------------------------------------------------------------------------------
  var drill = document.getElementById("drill");
  function showRun(id) {
    var run = byId[id];
    if (!run) { return; }
    drill.textContent = "";
    drill.setAttribute("data-run", id);
    drill.appendChild(h("h2", "Run " + run.id));
    var facts = h("dl", null, {"class": "facts"});
    function fact(name, value) {
      facts.appendChild(h("dt", name));
      var dd = h("dd");
      if (value instanceof Node) { dd.appendChild(value); } else { dd.textContent = value; }
      facts.appendChild(dd);
    }
    fact("log", run.file + ":" + run.line + " (" + (run.format || "empty") + ")");
    fact("outcome", outcomeBadge(run.outcome));
    fact("rounds and calls", run.rounds + " rounds, " + run.calls + " calls, " + run.notExecuted
         + " not executed, " + run.textChecks + " text checks");
    if (run.session) { fact("session", run.session); }
    if (run.parent !== null) {
      var parent = parentOf(run);
      fact("sub-agent of", parent ? runLink(parent) : run.parent);
      if (run.fromProgress) { fact("read from", "its session's progress lines: its calls, not its text"); }
    }
    var kids = childrenOf(run);
    if (kids.length) {
      var span = h("span");
      kids.forEach(function (kid, index) {
        if (index) { span.appendChild(document.createTextNode(", ")); }
        span.appendChild(runLink(kid));
      });
      fact("sub-agents", span);
    }
    drill.appendChild(facts);

    drill.appendChild(h("h3", "Where each rung fired"));
    var fired = RUNGS.filter(function (rung) { return run.fired[rung]; });
    drill.appendChild(fired.length ? table(["rung", "round", "line", "fired by", "streak", "message"],
      fired.map(function (rung) {
        var at = run.fired[rung];
        return [rungBadge(rung), String(at.round), String(at.line), at.by,
                at.streak === null ? "-" : String(at.streak), at.message];
      }), "fired-table") : h("p", "No rung fired."));

    drill.appendChild(h("h3", "Timeline"));
    if (run.points.length) {
      var drawn = DoomloopPlot.draw(run.points, setup.ladder, setup.colours);
      var plot = h("div", null, {"class": "plot", id: "drill-plot"});
      plot.appendChild(drawn.svg);
      drill.appendChild(plot);
      var legend = h("div", null, {"class": "legend"});
      DoomloopPlot.legendInto(legend, drawn.legend);
      drill.appendChild(legend);
      if (drawn.verdicts.length) {
        drill.appendChild(h("h3", "Every verdict"));
        drill.appendChild(table(["at", "line", "tool", "streak", "action", "message"],
          drawn.verdicts.map(function (cells) {
            return cells.slice(0, 4).concat([rungBadge(cells[4]), cells[5]]);
          }), "verdict-table"));
      }
    } else if (run.rounds || run.textChecks) {
      drill.appendChild(h("p", "No streak began and no rung fired in this run: every call's "
        + "streak stayed at 1 (a flat timeline, not kept)."));
    } else {
      drill.appendChild(h("p", "No round or text check to draw."));
    }

    drill.appendChild(h("h3", "Streaks (a tool's repeated calls), and their results"));
    drill.appendChild(run.streakList.length ? table(
      ["tool", "rounds", "longest", "repeats", "results", "identical", "changed", "action"],
      run.streakList.map(function (s) {
        return [s.tool, s.fromRound + "-" + s.toRound, String(s.longest), String(s.repeats), s.results,
                String(s.identical), String(s.changed), rungBadge(s.action)];
      }), "streak-table") : h("p", "None."));

    var problems = setup.problems.filter(function (p) { return p.run === run.id; });
    if (run.notices || problems.length) {
      drill.appendChild(h("h3", "Warnings and problems"));
      var list = h("ul");
      run.noticeList.forEach(function (n) { list.appendChild(h("li", "warning: line " + n.line + ": " + n.message)); });
      if (run.notices > run.noticeList.length) {
        list.appendChild(h("li", "... and " + (run.notices - run.noticeList.length) + " more warnings"));
      }
      problems.forEach(function (p) { list.appendChild(h("li", "problem: line " + p.line + ": " + p.message)); });
      drill.appendChild(list);
    }
    drill.scrollIntoView();
  }
  function route() {
    var match = /^#run=(.*)$/.exec(window.location.hash);
    if (match) { showRun(decodeURIComponent(match[1])); }
  }
  window.addEventListener("hashchange", route);
  route();
}());

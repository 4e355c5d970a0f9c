// Draws the replay plot from the data lines above (DoomloopPlot, inlined before this
// script); a sub-agent's conversation gets a plot of its own. No network, no library.
(function () {
  "use strict";
  var setup = JSON.parse(document.getElementById("replay-setup").textContent);
  var summary = JSON.parse(document.getElementById("replay-summary").textContent);
  var points = document.getElementById("replay-data").textContent.split("\n")
    .filter(function (line) { return line.trim() !== ""; })
    .map(function (line) { return JSON.parse(line); });

  // the log's own conversation first, then each sub-agent's, in order of appearance
  var threads = [""], byThread = {"": []};
  points.forEach(function (p) {
    var name = p.thread || "";
    if (!byThread[name]) { byThread[name] = []; threads.push(name); }
    byThread[name].push(p);
  });

  var body = document.querySelector("#verdicts tbody");
  var anchor = document.getElementById("legend");
  threads.forEach(function (name) {
    var plot = document.getElementById("plot"), legend = anchor;
    if (name) {
      var heading = document.createElement("h2");
      heading.textContent = "Sub-agent " + name + " (its own monitor; rounds from 1)";
      plot = document.createElement("div");
      plot.className = "plot sub-agent";
      plot.setAttribute("data-thread", name);
      legend = document.createElement("div");
      legend.className = "legend";
      anchor.parentNode.insertBefore(heading, document.getElementById("verdicts-title"));
      anchor.parentNode.insertBefore(plot, document.getElementById("verdicts-title"));
      anchor.parentNode.insertBefore(legend, document.getElementById("verdicts-title"));
    }
    var drawn = DoomloopPlot.draw(byThread[name], setup.ladder, setup.colours);
    plot.appendChild(drawn.svg);
    DoomloopPlot.legendInto(legend, drawn.legend);
    drawn.verdicts.forEach(function (cells) {
      var row = body.insertRow();
      if (name) { cells[0] = name + " " + cells[0]; }
      cells.forEach(function (text) { row.insertCell().textContent = text; });
    });
  });

  var fired = Object.keys(summary.firstFired).map(function (r) {
    return r + " at " + summary.firstFired[r];
  }).join(", ") || "none";
  var extra = "";
  if (summary.subAgents) { extra += " " + summary.subAgents + " sub-agents, each with its own monitor."; }
  if (summary.notices) { extra += " " + summary.notices + " warnings."; }
  if (summary.skipped) { extra += " " + summary.skipped + " records left out (problems)."; }
  document.getElementById("summary").textContent = setup.log + " (" + summary.format + " log): "
    + summary.rounds + " rounds, " + summary.calls + " calls, " + summary.blocked
    + " not executed (block/stop); first fired: " + fired + "." + extra;
}());

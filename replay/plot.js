// One conversation's streaks over its rounds, as an SVG: the replay page's plot and the
// fleet page's drill-down draw it from the same points. No network, no library.
var DoomloopPlot = (function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#00897b", "#8e24aa", "#3949ab", "#c0ca33", "#6d4c41", "#d81b60",
                 "#00acc1", "#7cb342", "#5e35b1", "#f4511e"];
  var W = 1000, H = 420, L = 48, R = 110, T = 16, B = 40;

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  // points: the replay's data lines; ladder: rung -> threshold or false; colours: rung -> colour.
  // Returns {svg, legend: [[name, colour, dashed]], verdicts: [[at, line, who, streak, action, message]]}.
  function draw(points, ladder, colours) {
    // series: tool -> list of runs of consecutive points [[x, y], ...]
    var series = {}, order = [], maxX = 1, maxY = 1, lastX = {};
    points.forEach(function (p) {
      maxX = Math.max(maxX, Math.ceil(p.x));
      Object.keys(p.streaks || {}).forEach(function (tool) {
        var y = p.streaks[tool];
        maxY = Math.max(maxY, y);
        if (!series[tool]) { series[tool] = []; order.push(tool); }
        var runs = series[tool];
        var step = tool === "text" ? 1.01 : 1;
        if (!runs.length || p.x - lastX[tool] > step) { runs.push([]); }
        runs[runs.length - 1].push([p.x, y]);
        lastX[tool] = p.x;
      });
    });
    var rungs = Object.keys(ladder).filter(function (r) { return ladder[r] !== false; });
    rungs.forEach(function (r) { maxY = Math.max(maxY, ladder[r]); });
    maxY += 1;

    function sx(x) { return L + (x / maxX) * (W - L - R); }
    function sy(y) { return H - B - (y / maxY) * (H - T - B); }

    var svg = el("svg", {viewBox: "0 0 " + W + " " + H, "class": "plot", "data-points": points.length});
    var yStep = Math.max(1, Math.ceil(maxY / 10));
    for (var y = 0; y <= maxY; y += yStep) {
      el("line", {x1: L, x2: W - R, y1: sy(y), y2: sy(y), "class": "grid"}, svg);
      el("text", {x: L - 6, y: sy(y) + 4, "text-anchor": "end", "class": "tick"}, svg, String(y));
    }
    var xStep = Math.max(1, Math.ceil(maxX / 20));
    for (var x = 0; x <= maxX; x += xStep) {
      el("text", {x: sx(x), y: H - B + 16, "text-anchor": "middle", "class": "tick"}, svg, String(x));
    }
    el("line", {x1: L, x2: W - R, y1: sy(0), y2: sy(0), "class": "axis"}, svg);
    el("line", {x1: L, x2: L, y1: sy(0), y2: T, "class": "axis"}, svg);
    el("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle"}, svg, "round");
    el("text", {x: 12, y: T + (H - T - B) / 2, transform: "rotate(-90 12 " + (T + (H - T - B) / 2) + ")",
                "text-anchor": "middle"}, svg, "streak");

    // the ladder's thresholds
    rungs.forEach(function (rung) {
      var value = ladder[rung], colour = colours[rung];
      el("line", {x1: L, x2: W - R, y1: sy(value), y2: sy(value), stroke: colour,
                  "class": "threshold", "data-rung": rung}, svg);
      el("text", {x: W - R + 4, y: sy(value) + 4, fill: colour}, svg, rung + " " + value);
    });

    // resumes
    points.filter(function (p) { return p.t === "resume"; }).forEach(function (p) {
      el("line", {x1: sx(p.x), x2: sx(p.x), y1: sy(0), y2: T, "class": "resume"}, svg);
      el("text", {x: sx(p.x) + 3, y: T + 10}, svg, "run " + p.run);
    });

    // one line per tool
    var legend = [];
    order.forEach(function (tool, index) {
      var colour = tool === "text" ? "#757575" : PALETTE[index % PALETTE.length];
      series[tool].forEach(function (run) {
        var coords = run.map(function (pt) { return sx(pt[0]) + "," + sy(pt[1]); }).join(" ");
        var attrs = {points: coords, stroke: colour, "class": "series", "data-tool": tool};
        if (tool === "text") { attrs["stroke-dasharray"] = "4 3"; }
        if (run.length === 1) {
          el("circle", {cx: sx(run[0][0]), cy: sy(run[0][1]), r: 2.5, fill: colour,
                        "class": "series-dot", "data-tool": tool}, svg);
        }
        el("polyline", attrs, svg);
      });
      legend.push([tool === "text" ? "text streak" : tool, colour]);
    });

    // a mark per verdict
    var verdicts = [];
    points.forEach(function (p) {
      (p.verdicts || []).forEach(function (v) {
        var y = v.tool === "text" ? p.streaks.text : p.streaks[v.tool];
        var mark = el("circle", {cx: sx(p.x), cy: sy(y), r: 5.5, fill: colours[v.action],
                                 stroke: "#fff", "class": "verdict", "data-action": v.action,
                                 "data-tool": v.tool}, svg);
        el("title", {}, mark, "line " + p.line + ": " + v.action + " (" + v.tool + ", streak "
           + v.streak + ") " + v.message);
        var who = v.calls > 1 ? v.tool + " \u00d7" + v.calls : v.tool;
        verdicts.push([p.t === "round" ? "R" + p.x : "after R" + Math.floor(p.x), "L" + p.line,
                       who, String(v.streak), v.action, v.message]);
      });
    });
    return {svg: svg, legend: legend, verdicts: verdicts};
  }

  // The legend as HTML: a swatch and a name per series.
  function legendInto(container, legend) {
    legend.forEach(function (item) {
      var span = document.createElement("span");
      var swatch = document.createElement("i");
      swatch.style.background = item[1];
      span.appendChild(swatch);
      span.appendChild(document.createTextNode(item[0]));
      container.appendChild(span);
    });
  }

  return {draw: draw, legendInto: legendInto};
}());
